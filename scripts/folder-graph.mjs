#!/usr/bin/env node
// Prints which folders of src import which, and exits 1 when an import breaks the layers of
// scripts/layers.mjs or two folders reach each other (a cycle). The unit is a folder under
// src/main (its root files count as "main"), and src/shared, src/renderer as wholes: a layer
// may only lean on the layers below it.
//   node scripts/folder-graph.mjs          the graph, any breaches and any cycles
//   node scripts/folder-graph.mjs --why    also each edge's importing files
//   node scripts/folder-graph.mjs --check  only the breaches and the cycles between folders or files (lint runs this)
//   --files                                files instead of folders: their graph and cycles
//   --root DIR                             another tree than this repository's
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { layerVerdict, moduleReferences, packageVerdict, parseModule, resolveModule, unitOf } from './layers.mjs';

const rootFlag = process.argv.indexOf('--root');
const root =
  rootFlag > 0 ? resolve(process.argv[rootFlag + 1]) : resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const showWhy = process.argv.includes('--why');
const showFiles = process.argv.includes('--files');
const checkOnly = process.argv.includes('--check');

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'shim' && dir === src ? [] : sourceFiles(path);
    // Declaration files too: the lint rule reads them, and their imports bind like any other.
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

// '/' on every OS: the names read, and are matched, alike everywhere.
const fromRoot = (file) => relative(root, file).split(sep).join('/');

// A file outside src is its own unit, named by its path.
export const folderOf = (file) => unitOf(fromRoot(file)) ?? fromRoot(file);

/**
 * Every import of every file, as the lint rule reads them: type-only ones count (a layer that
 * names another's types depends on it all the same), and so do import(), require() and the
 * rest. A computed specifier is left to the lint rule, which refuses it.
 */
export function importsOf(files) {
  return files.flatMap((file) => {
    const sourceFile = parseModule(file, readFileSync(file, 'utf8'));
    return moduleReferences(sourceFile)
      .filter(({ specifier }) => specifier !== null)
      .map(({ specifier, start }) => {
        const line = sourceFile.getLineAndCharacterOfPosition(start).line + 1;
        return { file, line, specifier, target: resolveModule(file, specifier) };
      });
  });
}

/** The imports scripts/layers.mjs does not allow, each with the rule it breaks. */
export function breaches(imports) {
  return imports.flatMap((found) => {
    const from = fromRoot(found.file);
    const verdict = found.target ? layerVerdict(from, fromRoot(found.target)) : packageVerdict(from, found.specifier);
    return verdict ? [{ ...found, verdict }] : [];
  });
}

function graph(imports, unitFor) {
  const edges = new Map();
  for (const { file, target } of imports) {
    if (!target) continue;
    const from = unitFor(file);
    const to = unitFor(target);
    if (from === to) continue;
    const key = `${from} -> ${to}`;
    if (!edges.has(key)) edges.set(key, { from, to, files: new Set() });
    edges.get(key).files.add(fromRoot(file));
  }
  return [...edges.values()].sort((a, b) => (a.from + a.to).localeCompare(b.from + b.to));
}

export const folderGraph = (imports) => graph(imports, folderOf);

/** Edges between the source files themselves; imports of anything else are left out. */
export function fileGraph(imports, files) {
  const known = new Set(files);
  return graph(
    imports.filter(({ target }) => known.has(target)),
    fromRoot,
  );
}

// Tarjan's strongly connected components: any component of two or more nodes is a cycle.
export function cycles(edges) {
  const next = new Map();
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, []);
    if (!next.has(to)) next.set(to, []);
    next.get(from).push(to);
  }
  let counter = 0;
  const index = new Map(),
    low = new Map(),
    stack = [],
    onStack = new Set(),
    found = [];
  const visit = (node) => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of next.get(node)) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node), low.get(target)));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node), index.get(target)));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = [];
    for (let member = stack.pop(); ; member = stack.pop()) {
      onStack.delete(member);
      component.push(member);
      if (member === node) break;
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return found;
}

function reportCycles(edges, grain) {
  const loops = cycles(edges);
  for (const loop of loops) {
    const inside = edges.filter((edge) => loop.includes(edge.from) && loop.includes(edge.to));
    console.error(`cycle: ${loop.join(', ')}`);
    for (const edge of inside) console.error(`  ${edge.from} -> ${edge.to}: ${[...edge.files].join(', ')}`);
  }
  console.log(loops.length === 0 ? `no cycles between ${grain}` : `${loops.length} cycle(s) between ${grain}`);
  return loops.length;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = sourceFiles(src);
  const imports = importsOf(files);
  const edges = showFiles ? fileGraph(imports, files) : folderGraph(imports);
  for (const edge of checkOnly ? [] : edges) {
    console.log(`${edge.from} -> ${edge.to}  (${edge.files.size})`);
    if (showWhy) for (const file of edge.files) console.log(`    ${file}`);
  }
  const broken = breaches(imports);
  for (const { file, line, target, specifier, verdict } of broken) {
    const edge = `${folderOf(file)} -> ${target ? folderOf(target) : specifier}`;
    console.error(`not allowed: ${edge}: ${fromRoot(file)}:${line} imports '${specifier}': ${verdict}`);
  }
  // --check looks at both grains: a cycle between two files of one folder is as much a tangle.
  const grains = checkOnly ? ['folders', 'files'] : [showFiles ? 'files' : 'folders'];
  const loops = grains.reduce(
    (count, grain) => count + reportCycles(grain === 'files' ? fileGraph(imports, files) : folderGraph(imports), grain),
    0,
  );
  console.log(
    broken.length === 0 ? 'every import follows scripts/layers.mjs' : `${broken.length} import(s) not allowed`,
  );
  process.exitCode = loops === 0 && broken.length === 0 ? 0 : 1;
}
