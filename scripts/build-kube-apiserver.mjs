#!/usr/bin/env node
// Builds a real kube-apiserver from the Go module proxy, once per version, into a cache outside
// the repo: ${KUBECRED_KUBE_CACHE:-${XDG_CACHE_HOME:-~/.cache}/kubecred/kube}/<version>/kube-apiserver.
// With --kubectl-windows it builds that version's kubectl.exe the same way (GOOS=windows), for
// the tests that run a Windows kubectl under Wine: <version>/windows-amd64/kubectl.exe.
// With --controller-manager it builds that version's kube-controller-manager beside the API
// server (<version>/kube-controller-manager), for the tests that need its CSR signer.
// k8s.io/kubernetes cannot be `go install`ed (its go.mod points its staging modules at
// ./staging/...), so a small main module requires it and maps each staging module to its
// published v0.<minor>.<patch>, read from that version's own go.mod replace block.
//
//   node scripts/build-kube-apiserver.mjs            builds (or finds) the default version
//   node scripts/build-kube-apiserver.mjs --print    prints the binary's path, builds nothing
//   node scripts/build-kube-apiserver.mjs --kubectl-windows [--print]
//   node scripts/build-kube-apiserver.mjs --controller-manager [--print]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const KUBE_VERSION = process.env.KUBECRED_KUBE_VERSION || 'v1.34.4';
const cacheRoot =
  process.env.KUBECRED_KUBE_CACHE ||
  path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'kubecred', 'kube');
const dir = path.join(cacheRoot, KUBE_VERSION);
// What it builds, by flag; the last, with no flag, is the default. tools.go imports every command,
// so that `go mod tidy` resolves one module graph whichever is built first and each build after
// the first finds the packages they share in the Go build cache.
const targets = [
  {
    flag: '--kubectl-windows',
    command: 'kubectl',
    goos: 'windows',
    binary: path.join(dir, 'windows-amd64', 'kubectl.exe'),
  },
  {
    flag: '--controller-manager',
    command: 'kube-controller-manager',
    binary: path.join(dir, 'kube-controller-manager'),
  },
  { flag: undefined, command: 'kube-apiserver', binary: path.join(dir, 'kube-apiserver') },
];
const target = targets.find((t) => !t.flag || process.argv.includes(t.flag));
const commands = targets.map((t) => t.command);
const { binary } = target;
const label = `${path.basename(binary)} ${KUBE_VERSION}`;

if (process.argv.includes('--print')) {
  process.stdout.write(`${binary}\n`);
  process.exit(existsSync(binary) ? 0 : 1);
}
if (existsSync(binary)) {
  process.stderr.write(`${label}: cached at ${binary}\n`);
  process.exit(0);
}

const go = ['go', '/usr/local/go/bin/go'].find((candidate) => spawnSync(candidate, ['version']).status === 0);
if (!go) fail('Go is not installed (scripts/setup.sh installs it)');
const [, major, minor, patch] =
  /^v(\d+)\.(\d+)\.(\d+)$/.exec(KUBE_VERSION) ??
  fail(`KUBECRED_KUBE_VERSION must look like v1.34.4, not ${KUBE_VERSION}`);
const started = Date.now();
const say = (line) => process.stderr.write(`${label}: ${line} (${Math.round((Date.now() - started) / 1000)} s)\n`);

const work = path.join(dir, 'module');
mkdirSync(work, { recursive: true });
say('reading the staging modules of k8s.io/kubernetes from the module proxy');
const info = JSON.parse(goRun(['mod', 'download', '-json', `k8s.io/kubernetes@${KUBE_VERSION}`], os.tmpdir()));
const staging = [
  ...readFileSync(info.GoMod, 'utf8').matchAll(/^\s*(k8s\.io\/[\w.-]+)\s*=>\s*\.\/staging\/src\/\S+\s*$/gm),
].map((m) => m[1]);
if (staging.length < 20) fail(`found only ${staging.length} staging modules in ${info.GoMod}`);
const published = `v0.${minor}.${patch}`;
writeFileSync(
  path.join(work, 'go.mod'),
  `module kubecred.test/kubeapiserver\n\ngo 1.24\n\nrequire k8s.io/kubernetes ${KUBE_VERSION}\n\nreplace (\n${staging.map((m) => `\t${m} => ${m} ${published}\n`).join('')})\n`,
);
writeFileSync(
  path.join(work, 'tools.go'),
  `//go:build tools\n\npackage tools\n\nimport (\n${commands.map((c) => `\t_ "k8s.io/kubernetes/cmd/${c}"\n`).join('')})\n`,
);
say(`${staging.length} staging modules mapped to ${published}; resolving the module graph`);
goRun(['mod', 'tidy'], work);
say('building (several minutes on 2 cores the first time; the Go build cache makes it seconds after)');
const version = 'k8s.io/component-base/version';
const ldflags = `-s -w -X ${version}.gitVersion=${KUBE_VERSION} -X ${version}.gitMajor=${major} -X ${version}.gitMinor=${minor} -X ${version}.gitTreeState=clean`;
mkdirSync(path.dirname(binary), { recursive: true });
const partial = `${binary}.${process.pid}.tmp`;
// A line every 30 s: a silent 7-minute step looks hung.
const heartbeat = setInterval(() => say('still building'), 30_000);
const built = await new Promise((resolve) => {
  const child = spawn(
    go,
    ['build', '-trimpath', '-ldflags', ldflags, '-o', partial, `k8s.io/kubernetes/cmd/${target.command}`],
    {
      cwd: work,
      env: {
        ...process.env,
        GOFLAGS: '-mod=mod',
        CGO_ENABLED: '0',
        ...(target.goos ? { GOOS: target.goos, GOARCH: 'amd64' } : {}),
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  child.on('exit', (code) => resolve(code));
  child.on('error', () => resolve(-1));
});
clearInterval(heartbeat);
if (built !== 0) fail(`go build of ${target.command} failed (exit ${built})`);
renameSync(partial, binary);
say(`built ${binary}`);

function goRun(args, cwd, env = {}) {
  const result = spawnSync(go, args, {
    cwd,
    env: { ...process.env, GOFLAGS: '-mod=mod', ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) fail(`go ${args.join(' ')} failed (exit ${result.status})`);
  return result.stdout;
}

function fail(message) {
  process.stderr.write(`build-kube-apiserver: ${message}\n`);
  process.exit(1);
}
