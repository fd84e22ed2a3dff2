#!/usr/bin/env node
// Kubecred as Windows runs it, on this Linux machine under Wine (npm run test:windows):
//   1. the unit suite on a Windows node.exe (the same Node version), its native packages'
//      Windows builds;
//   2. the Windows end to end (test/windows): the broker on node.exe, the named pipe,
//      Credential Manager, kubecred-shim.exe and a Windows kubectl.exe against a real
//      kube-apiserver; kubectl.exe through kubecred-proxy.exe with a guard; and kubecred-proxy's
//      Go tests built for Windows.
// Writes test-results/windows.json ({passed, failed, skipped, failures}) for npm test, and ends
// with one line "windows: N passed, N failed, N skipped".
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readVitestReport } from './vitest-report.mjs';
import { prepareWineWorld } from './wine-world.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const results = path.join(root, 'test-results');
mkdirSync(results, { recursive: true });
const tally = { passed: 0, failed: 0, skipped: 0, failures: [] };
const windowsPath = (linuxPath) => `Z:${path.resolve(linuxPath).replace(/\//g, '\\')}`;

const world = prepareWineWorld();

// 1. The unit suite on node.exe. Its output goes to a file: node.exe under Wine cannot write to
// a Linux pipe.
const unitReport = path.join(results, 'windows-unit.json');
const unitLog = path.join(results, 'windows-unit.log');
const log = openSync(unitLog, 'w');
const started = Date.now();
process.stderr.write('windows: the unit suite on node.exe under Wine\n');
spawnSync(
  'wine',
  [
    world.nodeExe,
    windowsPath(path.join(root, 'node_modules', 'vitest', 'vitest.mjs')),
    'run',
    '--project',
    'unit',
    '--reporter=dot',
    '--reporter=json',
    `--outputFile.json=${windowsPath(unitReport)}`,
  ],
  {
    cwd: root,
    env: { ...process.env, WINEPREFIX: world.prefix, WINEDEBUG: '-all', DISPLAY: '', CI: 'true' },
    stdio: ['ignore', log, log],
    timeout: 15 * 60_000,
  },
);
closeSync(log);
process.stderr.write(
  `${readFileSync(unitLog, 'utf8').split('\n').slice(-14).join('\n')}\nwindows: unit suite in ${Math.round((Date.now() - started) / 1000)} s (whole log: ${path.relative(root, unitLog)})\n`,
);
count('unit (node.exe)', unitReport);

// 2. The end to end, driven from Linux.
const e2eReport = path.join(results, 'windows-e2e.json');
spawnSync(
  'npx',
  [
    'vitest',
    'run',
    '--config',
    'vitest.windows.config.ts',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${e2eReport}`,
  ],
  { cwd: root, stdio: 'inherit', timeout: 15 * 60_000 },
);
count('end to end (kubectl.exe, kubecred-shim.exe)', e2eReport);

// Nothing of Windows outlives the run: every process of the prefix ends with its wineserver.
spawnSync('wineserver', ['-k'], { env: { ...process.env, WINEPREFIX: world.prefix } });
writeFileSync(path.join(results, 'windows.json'), `${JSON.stringify(tally, null, 2)}\n`);
if (tally.failures.length)
  process.stderr.write(`\nwindows, failed:\n${tally.failures.map((f) => `  - ${f}`).join('\n')}\n`);
process.stdout.write(`\nwindows: ${tally.passed} passed, ${tally.failed} failed, ${tally.skipped} skipped\n`);
process.exit(tally.failed === 0 ? 0 : 1);

function count(suite, reportFile) {
  const report = readVitestReport(reportFile, root, suite);
  tally.passed += report.passed;
  tally.failed += report.failed;
  tally.skipped += report.skipped;
  tally.failures.push(...report.failures);
}
