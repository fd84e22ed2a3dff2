import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIN_PAGE_ROUTE } from '../../src/shared/api/pageRoutes.js';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { REPO_ROOT, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const MAIN = path.join(REPO_ROOT, 'dist', 'main', 'electron', 'main.js');
const FAKE_ELECTRON = path.join(REPO_ROOT, 'test', 'support', 'fakeElectron', 'register.mjs');

interface Recorded {
  readonly event: string;
  readonly [field: string]: unknown;
}

/**
 * Issue 34, E1 and E5: the tray app's real main process (dist/main/electron/main.js) under plain
 * Node, with a stand-in `electron` module that records what the app asks of Electron, launched
 * while a headless broker already serves the home (kubectl started it: the common case). It used
 * to throw uncaught and stay alive with no tray and no window. Now it takes over: the daemon
 * exits, the tray and the main window come up on the broker in the app's process, and Quit
 * leaves no lock or client secret behind.
 */
describe('the tray app launched beside a running broker', () => {
  let home: TempHome;
  let daemon: TestBroker;
  const { cli, credential } = callersFor(() => home.dir);

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    await writeConfig(home.dir, 'profiles:\n  - { name: first, provider: static }\n');
    daemon = await startTestBroker(home.dir);
    expect((await cli(['secret', 'set', 'first', 'token'], 'served-by-the-tray')).code).toBe(0);
  });

  afterAll(async () => {
    await daemon?.stop();
    await home?.cleanup();
  });

  it('takes over, shows the tray and the main window, serves kubectl, and quits cleanly', async () => {
    const log = path.join(home.dir, 'electron-calls.jsonl');
    const daemonGone = new Promise<number | null>((resolve) => daemon.process.once('exit', resolve));
    const app = spawn(process.execPath, ['--import', FAKE_ELECTRON, MAIN], {
      env: { ...brokerEnv(home.dir), FAKE_ELECTRON_LOG: log },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    app.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => app.once('exit', resolve));
    const calls = async (): Promise<Recorded[]> =>
      (await readFile(log, 'utf8').catch(() => ''))
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Recorded);
    const loaded = async () => (await calls()).find((c) => c.event === 'window.loadURL');

    await expect.poll(loaded, { timeout: 20_000, message: `the app showed no window:\n${output}` }).toBeDefined();
    expect(await daemonGone).toBe(0);
    const seen = await calls();
    expect(seen.map((c) => c.event)).toContain('tray.new');
    expect(seen.find((c) => c.event === 'dialog.showErrorBox')).toBeUndefined();
    expect(String((await loaded())!.url)).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:\\d+${MAIN_PAGE_ROUTE.replace(/[/#]/g, '\\$&')}`),
    );
    expect(seen.find((c) => c.event === 'app.setPath')).toMatchObject({ name: 'userData' });
    expect(String(seen.find((c) => c.event === 'app.setPath')!.value)).toMatch(/Kubecred-app$/);
    expect(output).toContain('a headless broker serves this home; the tray app stops it and takes over');

    // The broker now lives in the app's process, and serves what the daemon stored.
    const status = JSON.parse((await cli(['status', '-o', 'json'])).stdout) as { pid: number };
    expect(status.pid).toBe(app.pid);
    const served = await credential('first');
    expect(JSON.parse(served.stdout).status.token).toBe('served-by-the-tray');

    // Quit (SIGTERM takes Electron's Quit path): the broker closes before the app exits (E7).
    app.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(existsSync(path.join(home.dir, 'run', 'broker.lock'))).toBe(false);
    expect(existsSync(path.join(home.dir, 'run', 'client-secret'))).toBe(false);
    expect((await calls()).map((c) => c.event)).toEqual(expect.arrayContaining(['tray.destroy', 'app.exit']));
  });
});
