#!/usr/bin/env node
// `npm run test:electron`: the tray app's smoke test, for a machine with the Electron binary (a
// release machine). It starts the real app under Xvfb with a home of its own, waits for the
// broker socket, opens the main window (a second start asks the first instance to), checks that
// the profile list renders the profile of its config.yaml, and quits. Without the binary it says
// "skipped: no Electron binary" and exits 0, so the summary of `npm test` can say so.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronBinary } from './electron-binary.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const electron = electronBinary();
if (!electron) {
  process.stdout.write('electron smoke test: skipped: no Electron binary\n');
  process.exit(0);
}

const home = mkdtempSync(path.join(os.tmpdir(), 'kc-electron-'));
writeFileSync(path.join(home, 'config.yaml'), 'profiles:\n  - { name: smoke, provider: static }\n', { mode: 0o600 });
const { freePort } = await import('../dist/main/platform/freePort.js');
const port = await freePort();
const needsDisplay = process.platform === 'linux' && !process.env.DISPLAY;
if (needsDisplay && spawnSync('xvfb-run', ['--help']).error) fail('no DISPLAY and no xvfb-run: apt-get install xvfb');
const launch = (extra) => {
  const args = [root, `--remote-debugging-port=${port}`, ...extra];
  const [command, ...rest] = needsDisplay ? ['xvfb-run', '-a', electron, ...args] : [electron, ...args];
  return spawn(command, rest, {
    env: { ...process.env, KUBECRED_HOME: home },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
};

const app = launch([]);
let failed = false;
try {
  await until(() => existsSync(path.join(home, 'run', 'broker.sock')), 30_000, 'the broker socket');
  process.stdout.write('electron smoke test: the tray app runs its broker\n');
  // A second instance asks the first to open its main window, as a second click would.
  launch([]);
  const { chromium } = await import('playwright-core');
  const browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`);
  const page = await until(
    () =>
      browser
        .contexts()
        .flatMap((c) => c.pages())
        .find((p) => /^http:\/\/127\.0\.0\.1:\d+\/(#.*)?$/.test(p.url())),
    30_000,
    'the main window',
  );
  await page.locator('[data-profile="smoke"]').waitFor({ timeout: 15_000 });
  process.stdout.write('electron smoke test: the main window lists the profile from config.yaml\n');
  await browser.close();
} catch (error) {
  failed = true;
  process.stderr.write(`electron smoke test: failed: ${error.message}\n`);
} finally {
  spawnSync(process.execPath, [path.join(root, 'bin', 'kubecred'), 'stop'], {
    env: { ...process.env, KUBECRED_HOME: home },
    stdio: 'inherit',
  });
  app.kill('SIGTERM');
  rmSync(home, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

async function until(probe, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`no ${what} after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function fail(message) {
  process.stderr.write(`electron smoke test: ${message}\n`);
  process.exit(1);
}
