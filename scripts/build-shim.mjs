#!/usr/bin/env node
// Cross-compiles the Go exec-plugin shim (src/shim) into
// dist/shim/<goos>-<goarch>/kubecred-shim[.exe], and the exec proxy (src/shim/proxy) beside it
// as kubecred-proxy[.exe].
//
//   node scripts/build-shim.mjs                     all six release targets
//   KUBECRED_SHIM_TARGETS=host node scripts/...     only this machine (dev loop)
//   KUBECRED_SHIM_TARGETS=linux/arm64,darwin/arm64  a chosen few
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const srcDir = join(root, 'src', 'shim');
const ALL_TARGETS = ['linux', 'darwin', 'windows'].flatMap((os) => ['amd64', 'arm64'].map((arch) => `${os}/${arch}`));
// Two at a time: the Go compiler is itself parallel, and six at once starve CI boxes.
const PARALLEL = 2;

function fail(message) {
  console.error(`build-shim: ${message}`);
  process.exit(1);
}

function findGo() {
  for (const candidate of ['go', '/usr/local/go/bin/go']) {
    const r = spawnSync(candidate, ['env', 'GOHOSTOS', 'GOHOSTARCH'], { encoding: 'utf8' });
    if (r.status === 0) {
      const [os, arch] = r.stdout.trim().split(/\s+/);
      return { go: candidate, host: `${os}/${arch}` };
    }
  }
  fail('no Go toolchain found: put `go` on PATH (https://go.dev/dl/) or install it in /usr/local/go');
}

function chooseTargets(host) {
  const wanted = (process.env.KUBECRED_SHIM_TARGETS ?? '').trim();
  if (wanted === '' || wanted === 'all') return ALL_TARGETS;
  if (wanted === 'host') return [host];
  const list = wanted
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const unknown = list.filter((t) => !/^[a-z0-9]+\/[a-z0-9]+$/.test(t));
  if (unknown.length > 0) {
    fail(`KUBECRED_SHIM_TARGETS: expected "host", "all" or goos/goarch,... but got ${unknown.join(', ')}`);
  }
  return list;
}

const PROGRAMS = [
  { name: 'kubecred-shim', pkg: '.' },
  { name: 'kubecred-proxy', pkg: './proxy' },
];

function build(go, target, program) {
  const [goos, goarch] = target.split('/');
  const out = join(
    root,
    'dist',
    'shim',
    `${goos}-${goarch}`,
    goos === 'windows' ? `${program.name}.exe` : program.name,
  );
  // -buildvcs=false and an empty build id make the binary depend only on
  // the source and the toolchain (reproducible, and no git needed).
  const args = ['build', '-trimpath', '-buildvcs=false', '-ldflags', '-s -w -buildid=', '-o', out, program.pkg];
  return new Promise((resolve) => {
    const child = spawn(go, args, {
      cwd: srcDir,
      env: { ...process.env, CGO_ENABLED: '0', GOOS: goos, GOARCH: goarch },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (err) => resolve({ target, ok: false, output: String(err) }));
    child.on('close', (code) => {
      if (code !== 0) return resolve({ target, ok: false, output });
      const size = statSync(out).size;
      console.log(
        `${target.padEnd(14)} ${relative(root, out).padEnd(44)} ${(size / 1048576).toFixed(2)} MiB (${size} bytes)`,
      );
      resolve({ target, ok: true });
    });
  });
}

async function main() {
  if (!existsSync(join(srcDir, 'go.mod'))) fail(`no Go module at ${srcDir}`);
  const { go, host } = findGo();
  const queue = chooseTargets(host).flatMap((target) => PROGRAMS.map((program) => ({ target, program })));
  const failures = [];
  const worker = async () => {
    for (let job = queue.shift(); job !== undefined; job = queue.shift()) {
      const r = await build(go, job.target, job.program);
      if (!r.ok) failures.push(r);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  for (const f of failures) console.error(`build-shim: ${f.target} failed:\n${f.output.trimEnd()}`);
  if (failures.length > 0) process.exit(1);
}

await main();
