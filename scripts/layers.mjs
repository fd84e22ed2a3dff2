// The layers of src, in one table that both gates read: the lint rule (scripts/eslint-layers.mjs,
// file by file as you edit) and scripts/folder-graph.mjs (the whole tree, in npm run lint). Both
// find a file's imports with moduleReferences below and resolve each against the importing file
// before asking layerVerdict, so a path is judged by where it lands, not by how it is spelled.
import { existsSync, statSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// Required, not imported: importing a CommonJS package from ESM first scans all of its 9 MB for
// export names, which took longer than reading every file of src.
const ts = createRequire(import.meta.url)('typescript');

// Each folder of src/main may import src/shared and the folders listed for it, nothing else.
// Listed from the inside out: a folder only names folders above it in this table. `holds` is
// what a contributor reads in docs/contributing.md and the README (both generated from here).
export const MAIN_LAYERS = {
  core: { imports: [], holds: 'errors, clock, logger, SecretStore and the ports the use cases name' },
  platform: { imports: ['core'], holds: 'the OS: processes, atomic writes, paths, the run dir, sockets, the browser' },
  cache: { imports: ['core'], holds: 'the credential cache and its keys' },
  config: { imports: ['core', 'platform'], holds: 'config.yaml: read, last good, edited in place' },
  state: { imports: ['core', 'platform'], holds: 'the audit log on disk' },
  secrets: {
    imports: ['core', 'platform', 'cache'],
    holds: 'the secret stores: the OS keychain (chunked), the encrypted file, PKCS#11 tokens (lazy)',
  },
  providers: {
    imports: ['core', 'platform'],
    holds: 'how each kind of profile gets a credential: a folder and a descriptor per provider',
  },
  registry: {
    imports: ['core', 'platform', 'cache'],
    holds: 'image registry logins: the kubelet credential provider and the docker helper',
  },
  proxy: {
    imports: ['core', 'platform', 'providers', 'secrets'],
    holds: "kubecred-proxy's supervisor (the exec proxy) and what its token may sign",
  },
  ui: {
    imports: ['core'],
    holds: "where questions go without a window: the interaction board, the browser, the web UI's queue",
  },
  broker: {
    imports: ['core', 'platform', 'cache', 'config', 'state', 'secrets', 'providers', 'registry', 'proxy', 'ui'],
    holds: 'the use cases: credentials, logins, approvals, secrets, registries',
  },
  client: { imports: ['core', 'platform'], holds: "the broker API's client (the CLI, doctor and the demo use it)" },
  http: { imports: ['core'], holds: 'what both HTTP servers share (the bounded JSON body reader)' },
  kubeconfig: {
    imports: ['core', 'platform', 'config'],
    holds: 'kubeconfig files: install, import (comments kept, atomic, locked)',
  },
  enroll: {
    imports: ['core', 'platform', 'config', 'kubeconfig', 'secrets'],
    holds: "kubecred enroll: a key on the token, its certificate from the cluster's CSR API",
  },
  server: {
    imports: ['core', 'platform', 'http', 'broker'],
    holds: 'the HTTP API on the socket: the operation handlers, limits, who calls, single instance',
  },
  webui: {
    imports: ['core', 'platform', 'http', 'ui', 'broker', 'kubeconfig'],
    holds: 'the web UI server (loopback, one-time link, live status) for tabs and tray windows',
  },
  doctor: {
    imports: ['core', 'platform', 'config', 'secrets', 'providers', 'kubeconfig', 'client'],
    holds: 'kubecred doctor: independent checks with deadlines',
  },
};

// The hosts wire the layers into programs and sit on top: they may import every layer and each
// other, and no layer imports them. No file stands directly in src/main: each has a room.
export const HOSTS = {
  hosts: {
    holds: 'the wiring: composeBroker, startBroker (daemon and tray), the web UI host, the services the window calls',
  },
  cli: { holds: 'the kubecred command (also the Node shim)' },
  demo: { holds: 'the demo and its Kubernetes API stand-in (also used by the tests)' },
  electron: { holds: 'the tray app (thin): tray, notifications, windows on the web UI' },
};

// src/shared in layers of its own, from the inside out: its root files (durations, printable
// text, the ExecCredential shape) under the registry's words, config.yaml's schema, and the
// APIs between the runtimes. A subfolder of shared not named here is an error.
export const SHARED_LAYERS = {
  shared: { imports: [], holds: 'what every runtime reads: durations, printable text, the ExecCredential shape' },
  'shared/registry': { imports: ['shared'], holds: 'image registry words: matchers, the kubelet and docker requests' },
  'shared/config': {
    imports: ['shared', 'shared/registry'],
    holds: "config.yaml's schema, the provider facts, secret store references",
  },
  'shared/api': {
    imports: ['shared', 'shared/registry', 'shared/config'],
    holds: 'the APIs between runtimes: the socket operations, the UI contract, errors, the words for states',
  },
};

// The wholes under src: what each may import besides itself. src/main's folders are further
// layered by the tables above; the other two run in the browser too.
const SRC_ROOTS = {
  shared: { imports: [], rule: 'src/shared is the bottom layer: it imports nothing of src/main or src/renderer' },
  renderer: { imports: ['shared'], rule: 'src/renderer never imports src/main; share through src/shared' },
  main: { imports: ['shared'], rule: 'src/main never imports src/renderer; share through src/shared' },
};

const ELECTRON_HOME = 'main/electron';
const OUTSIDE_NODE = ['shared', 'renderer'];
const TABLE = '(the layers in scripts/layers.mjs)';

/**
 * The unit a file belongs to, from its path relative to the repository ('/' between parts):
 * a folder of src/main ("main/cache") or src/shared ("shared/api"), "main" or "shared" for the
 * files directly in them, "renderer" for that whole; null outside src.
 */
export function unitOf(path) {
  const [top, whole, folder, ...below] = path.split('/');
  if (top !== 'src') return null;
  if (whole === 'renderer') return whole;
  return below.length > 0 ? `${whole}/${folder}` : whole;
}

const mainFolderOf = (unit) => unit.slice('main/'.length);
const isHost = (unit) => unit.startsWith('main/') && Object.hasOwn(HOSTS, mainFolderOf(unit));
// "main" is the unit of a file directly in src/main, which no layer holds.
const isListed = (unit) =>
  unit === 'renderer' ||
  Object.hasOwn(SHARED_LAYERS, unit) ||
  isHost(unit) ||
  (unit.startsWith('main/') && Object.hasOwn(MAIN_LAYERS, mainFolderOf(unit)));

/**
 * Null when `fromFile` may import `targetFile`, else the rule it breaks. Both are paths
 * relative to the repository with '/' between parts; only files in src are judged.
 */
export function layerVerdict(fromFile, targetFile) {
  const from = unitOf(fromFile);
  if (from === null) return null;
  const to = unitOf(targetFile);
  if (to === null) return `src imports nothing outside src (${targetFile})`;
  if (from === to) return null;
  const unlisted = [from, to].find((unit) => !isListed(unit));
  if (unlisted === 'main')
    return 'a file directly in src/main is in no layer: put it in a folder (wiring goes in src/main/hosts)';
  if (unlisted) return `src/${unlisted} is in no layer: name it in a table of scripts/layers.mjs`;
  const [fromRoot] = from.split('/');
  const [toRoot] = to.split('/');
  if (fromRoot !== toRoot) return SRC_ROOTS[fromRoot].imports.includes(toRoot) ? null : SRC_ROOTS[fromRoot].rule;
  if (fromRoot === 'shared') {
    const allowed = SHARED_LAYERS[from].imports;
    if (allowed.includes(to)) return null;
    return `src/${from} may import only ${allowed.map((unit) => `src/${unit}`).join(', ') || 'its own files'} ${TABLE}`;
  }
  if (isHost(from)) return null;
  if (isHost(to)) return `the hosts wire the layers; no layer imports a host (${targetFile})`;
  const allowed = MAIN_LAYERS[mainFolderOf(from)].imports;
  if (allowed.includes(mainFolderOf(to))) return null;
  const names = allowed.map((name) => `src/main/${name}`);
  return `src/${from} may import only src/shared and ${names.join(', ') || 'nothing else'} ${TABLE}`;
}

/** Null when `fromFile` may import the package `name` (a bare specifier), else the rule it breaks. */
export function packageVerdict(fromFile, name) {
  const from = unitOf(fromFile);
  if (from === null) return null;
  if ((name === 'electron' || name.startsWith('electron/')) && from !== ELECTRON_HOME)
    return 'electron is imported only in src/main/electron';
  if (OUTSIDE_NODE.includes(from.split('/')[0]) && isBuiltin(name))
    return 'src/shared and src/renderer run outside Node: no node: built-ins';
  return null;
}

// TypeScript, and require() on Windows, read '\' in a path as '/'; judging it the same way keeps
// a Windows spelling from passing as a package name. A drive letter starts a path too.
const PATH_SPECIFIER = /^(?:\.\.?(?:\/|$)|\/|[A-Za-z]:\/)/;

/**
 * The file a specifier names, resolved against the importing file as TypeScript and Node do
 * (a '.js' path finds its '.ts', a folder its index); null for a package. A path that names
 * nothing on disk is returned as written: where it points is what the layers judge.
 */
export function resolveModule(fromFile, specifier) {
  const spelled = specifier.replaceAll('\\', '/');
  let path;
  if (/^file:/i.test(spelled)) {
    try {
      path = fileURLToPath(spelled);
    } catch {
      path = resolve(spelled.slice('file:'.length));
    }
  } else if (PATH_SPECIFIER.test(spelled)) {
    // On Linux a drive path lands in the working directory, outside src: refused, as it should be.
    path = spelled.startsWith('.') ? resolve(dirname(fromFile), spelled) : resolve(spelled);
  } else return null;
  const stem = path.replace(/\.[cm]?jsx?$/, '');
  const candidates = [path, ...['.ts', '.tsx', '.mts', '.cts', '.d.ts'].map((ext) => stem + ext)];
  const found = candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
  if (found) return found;
  if (existsSync(path) && statSync(path).isDirectory()) {
    const index = ['index.ts', 'index.tsx'].map((name) => join(path, name)).find((file) => existsSync(file));
    return index ?? join(path, 'index.ts');
  }
  return path;
}

export function parseModule(fileName, text) {
  return ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false);
}

/**
 * Every place a file names another module, as { specifier, start, end }: import and export
 * declarations (type-only and side-effect ones too), import(), import types, require(), the
 * function createRequire() returns, `declare module '...'` and /// <reference path>. The
 * specifier is null when it is not a string the file spells out: a module-level const holding
 * one counts as spelled out, so long as no other declaration in the file shares its name.
 */
export function moduleReferences(sourceFile) {
  const { constants, requireNames, createRequireNames } = declarationsOf(sourceFile);
  const found = [];
  const add = (node, at = node) => {
    found.push({ specifier: node ? valueOf(node, constants) : null, start: at.getStart(sourceFile), end: at.getEnd() });
  };
  const loadsModule = (callee) =>
    callee.kind === ts.SyntaxKind.ImportKeyword ||
    (ts.isIdentifier(callee) && requireNames.has(callee.text)) ||
    callsCreateRequire(callee, createRequireNames);
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier)
      add(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      add(node.moduleReference.expression);
    else if (ts.isImportTypeNode(node))
      add(ts.isLiteralTypeNode(node.argument) ? node.argument.literal : undefined, node.argument);
    else if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) add(node.name);
    else if (ts.isCallExpression(node) && loadsModule(node.expression))
      add(node.arguments[0], node.arguments[0] ?? node);
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  for (const reference of sourceFile.referencedFiles) {
    // A reference path is relative even without './'.
    const specifier = PATH_SPECIFIER.test(reference.fileName) ? reference.fileName : `./${reference.fileName}`;
    found.push({ specifier, start: reference.pos, end: reference.end });
  }
  return found.sort((a, b) => a.start - b.start);
}

function valueOf(node, constants) {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isIdentifier(node)) return constants.get(node.text) ?? null;
  return null;
}

// One pass over the declarations: module-level string consts nothing shadows, and the names a
// module loader goes by here (require itself, and whatever createRequire's result is bound to).
function declarationsOf(sourceFile) {
  const declared = new Map();
  const requireNames = new Set(['require']);
  const createRequireNames = new Set(['createRequire']);
  const visit = (node) => {
    const name = declaredName(node);
    if (name) declared.set(name.text, (declared.get(name.text) ?? 0) + 1);
    if (ts.isImportSpecifier(node) && (node.propertyName ?? node.name).text === 'createRequire')
      createRequireNames.add(node.name.text);
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      callsCreateRequire(node.initializer, createRequireNames)
    )
      requireNames.add(node.name.text);
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  const constants = new Map();
  for (const statement of sourceFile.statements) {
    if (!ts.isVariableStatement(statement) || !(statement.declarationList.flags & ts.NodeFlags.Const)) continue;
    for (const { name, initializer: init } of statement.declarationList.declarations) {
      const literal = init && (ts.isStringLiteral(init) || ts.isNoSubstitutionTemplateLiteral(init));
      if (literal && ts.isIdentifier(name) && declared.get(name.text) === 1) constants.set(name.text, init.text);
    }
  }
  return { constants, requireNames, createRequireNames };
}

// createRequire(...) under any local name, or as module.createRequire(...).
function callsCreateRequire(node, createRequireNames) {
  if (!node || !ts.isCallExpression(node)) return false;
  const callee = node.expression;
  return ts.isIdentifier(callee)
    ? createRequireNames.has(callee.text)
    : ts.isPropertyAccessExpression(callee) && callee.name.text === 'createRequire';
}

function declaredName(node) {
  const named =
    ts.isVariableDeclaration(node) ||
    ts.isParameter(node) ||
    ts.isBindingElement(node) ||
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isClassDeclaration(node) ||
    ts.isClassExpression(node) ||
    ts.isEnumDeclaration(node) ||
    ts.isImportClause(node) ||
    ts.isImportSpecifier(node) ||
    ts.isNamespaceImport(node) ||
    ts.isImportEqualsDeclaration(node);
  return named && node.name && ts.isIdentifier(node.name) ? node.name : undefined;
}
