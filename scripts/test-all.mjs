#!/usr/bin/env node
// Runs every suite (build, lint, type check, Go shim tests, unit and integration tests under a
// real Secret Service) and ends with one line: "N passed, N failed".
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readVitestReport } from './vitest-report.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const results = path.join(root, 'test-results');
rmSync(results, { recursive: true, force: true });
mkdirSync(results, { recursive: true });
const tally = { passed: 0, failed: 0, skipped: 0 };
const failures = [];

function step(name, command, args, options = {}) {
  process.stderr.write(`\n== ${name}: ${[command, ...args].join(' ')}\n`);
  const started = Date.now();
  const result = spawnSync(command, args, {
    cwd: options.cwd ?? root,
    stdio: options.capture ? ['ignore', 'pipe', 'inherit'] : 'inherit',
    env: { ...process.env, ...options.env },
    maxBuffer: 256 * 1024 * 1024,
  });
  process.stderr.write(`== ${name}: exit ${result.status} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return result;
}

function check(name, command, args) {
  const ok = step(name, command, args).status === 0;
  tally[ok ? 'passed' : 'failed']++;
  if (!ok) failures.push(name);
  return ok;
}

// The parts only the tests need (scripts/setup.sh made the demo ready): found at once once made.
check('setup the tests (scripts/setup-tests.sh)', 'bash', [path.join(root, 'scripts', 'setup-tests.sh')]);
const built = check('build', 'npm', ['run', '--silent', 'build']);
check('lint', 'npx', ['eslint', '.']);
check('format (prettier --check)', 'npx', ['prettier', '--check', '.', '--log-level', 'warn']);
check('layers (every import allowed, no cycles)', 'node', ['scripts/folder-graph.mjs', '--check']);
check('typecheck tests', 'npx', ['tsc', '-p', 'tsconfig.test.json']);
// What lint cannot see: src/shared compiles with neither DOM nor Node types, the renderer
// without Node's, src/main without the DOM's.
for (const layer of ['shared', 'renderer', 'main'])
  check(`typecheck ${layer}`, 'npx', ['tsc', '-p', `tsconfig.${layer}.json`]);

const go = existsSync('/usr/local/go/bin/go') && !spawnSync('go', ['version']).stdout ? '/usr/local/go/bin/go' : 'go';
const goTest = step('go test (shim)', go, ['test', '-json', '-count=1', './...'], {
  cwd: path.join(root, 'src', 'shim'),
  capture: true,
});
const goEvents = String(goTest.stdout ?? '')
  .split('\n')
  .filter(Boolean)
  .map((line) => {
    try {
      return JSON.parse(line);
    } catch {
      return {};
    }
  });
for (const event of goEvents) {
  if (!event.Test || event.Test.includes('/')) continue;
  if (event.Action === 'pass') tally.passed++;
  if (event.Action === 'fail') {
    tally.failed++;
    failures.push(`go ${event.Test}`);
  }
  if (event.Action === 'skip') tally.skipped++;
}
if (goTest.status !== 0 && !goEvents.some((e) => e.Action === 'fail')) {
  tally.failed++;
  failures.push('go test did not run');
}
process.stderr.write(
  goEvents
    .filter((e) => e.Action === 'output' && /^(--- FAIL|FAIL|ok)/.test(e.Output ?? ''))
    .map((e) => e.Output)
    .join(''),
);

if (built) {
  // The keychain tests need a Secret Service: start a private D-Bus session with gnome-keyring
  // unless one is already there.
  const keyringSession = path.join(root, '.ci', 'keyring-session.sh');
  const wrap = process.env.DBUS_SESSION_BUS_ADDRESS ? [] : ['bash', keyringSession];
  const vitestArgs = [
    'vitest',
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${path.join(results, 'vitest.json')}`,
    ...process.argv.slice(2),
  ];
  const [command, ...args] = wrap.length ? [...wrap, 'npx', ...vitestArgs] : ['npx', ...vitestArgs];
  const vitest = step('vitest (unit + integration)', command, args);
  const report = readVitestReport(path.join(results, 'vitest.json'), root);
  tally.passed += report.passed;
  tally.failed += report.failed;
  tally.skipped += report.skipped;
  failures.push(...report.failures);
  if (vitest.status !== 0 && report.failed === 0) {
    tally.failed++;
    failures.push(`vitest exited ${vitest.status} (a suite failed to load)`);
  }
}

// Kubecred as Windows runs it, under Wine: the unit suite on node.exe, and kubectl.exe through
// kubecred-shim.exe and the named pipe (scripts/test-windows.mjs).
if (built) {
  step('windows (under Wine)', process.execPath, [path.join(root, 'scripts', 'test-windows.mjs')]);
  const summary = path.join(results, 'windows.json');
  if (existsSync(summary)) {
    const windows = JSON.parse(readFileSync(summary, 'utf8'));
    tally.passed += windows.passed;
    tally.failed += windows.failed;
    tally.skipped += windows.skipped;
    failures.push(...windows.failures.map((f) => `windows ${f}`));
  } else {
    tally.failed++;
    failures.push('windows: scripts/test-windows.mjs wrote no summary (its reason is above)');
  }
}

// The tray app's smoke test needs the Electron binary (a release machine); here it says it skipped.
if (built) {
  const smoke = step('electron smoke test', process.execPath, [path.join(root, 'scripts', 'test-electron.mjs')], {
    capture: true,
  });
  const said = String(smoke.stdout ?? '');
  process.stderr.write(said);
  if (said.includes('skipped: no Electron binary')) tally.skipped++;
  else if (smoke.status === 0) tally.passed++;
  else {
    tally.failed++;
    failures.push('electron smoke test');
  }
}

// Every suite stops what it started: an API server or etcd still running is a failure.
const leftover = spawnSync(
  'pgrep',
  ['-af', '^([^ ]*/)?(kube-apiserver --etcd-servers=http://127\\.0\\.0\\.1|etcd --name kubecred-test)'],
  { encoding: 'utf8' },
).stdout.trim();
// And no broker of this checkout outlives them: one still running went to a home no test
// owns (the user's own, when a call forgot KUBECRED_HOME). Only in CI, where no broker of the
// checkout is the user's.
const leftoverBrokers = process.env.CI
  ? spawnSync(
      'pgrep',
      [
        '-af',
        `^([^ ]*node )?${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/(bin/kubecred|dist/main/cli/main\\.js) daemon`,
      ],
      {
        encoding: 'utf8',
      },
    ).stdout.trim()
  : '';
if (leftover || leftoverBrokers) {
  tally.failed++;
  failures.push(
    `processes left running after the suites:\n${[leftover, leftoverBrokers]
      .filter(Boolean)
      .join('\n')
      .split('\n')
      .map((line) => `      ${line.slice(0, 160)}`)
      .join('\n')}`,
  );
}

// The far end of the end-to-end tests: say which real API server they ran against.
const kubeBinary = spawnSync(process.execPath, [path.join(root, 'scripts', 'build-kube-apiserver.mjs'), '--print'], {
  encoding: 'utf8',
}).stdout.trim();
const kubeVersion =
  kubeBinary && existsSync(kubeBinary) ? spawnSync(kubeBinary, ['--version'], { encoding: 'utf8' }).stdout.trim() : '';
process.stderr.write(
  `\nend-to-end tests ran against: ${kubeVersion ? `kube-apiserver ${kubeVersion.replace(/^Kubernetes /, '')} (${kubeBinary}) with etcd` : 'no kube-apiserver (scripts/setup.sh builds it)'}\n`,
);

if (failures.length) process.stderr.write(`\nFailed:\n${failures.map((f) => `  - ${f}`).join('\n')}\n`);
process.stdout.write(`\n${tally.passed} passed, ${tally.failed} failed, ${tally.skipped} skipped\n`);
process.exit(tally.failed === 0 ? 0 : 1);
