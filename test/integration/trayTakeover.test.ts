import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLinesLogger } from '../../src/main/core/logger.js';
import { kubecredPaths } from '../../src/main/platform/paths.js';
import { startTrayBroker, type TrayBroker } from '../../src/main/hosts/trayBroker.js';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

/**
 * Issue 34, E1: the tray app launched while a headless broker already serves the home (kubectl
 * or `kubecred daemon` started it, the common case). Its start used to throw, uncaught: no tray,
 * no window, the single-instance lock held. The tray takes over: it stops the daemon and serves
 * the home itself, in its own process (this test's worker plays the tray's main process).
 */
describe("the tray's broker beside a running daemon", () => {
  let home: TempHome;
  let daemon: TestBroker;
  let tray: TrayBroker | undefined;
  const logs: string[] = [];
  const { cli, credential } = callersFor(() => home.dir);

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    await writeConfig(home.dir, 'profiles:\n  - { name: kept, provider: static }\n');
    daemon = await startTestBroker(home.dir);
    expect((await cli(['secret', 'set', 'kept', 'token'], 'kept-across-the-takeover')).code).toBe(0);
  });

  afterAll(async () => {
    await tray?.close();
    await daemon?.stop();
    await home?.cleanup();
  });

  it('stops the daemon and serves the home itself, with its windows; the profiles and secrets are all there', async () => {
    const daemonGone = new Promise<number | null>((resolve) => daemon.process.once('exit', resolve));
    tray = await startTrayBroker(
      kubecredPaths({
        platform: process.platform,
        env: { KUBECRED_HOME: home.dir },
        homedir: os.homedir(),
        tmpdir: os.tmpdir(),
        uid: process.getuid?.() ?? 0,
      }),
      jsonLinesLogger((line) => void logs.push(line)),
    );
    expect(await daemonGone).toBe(0);
    expect(tray.webUi.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(logs.join('')).toContain('a headless broker serves this home; the tray app stops it and takes over');
    const status = JSON.parse((await cli(['status', '-o', 'json'])).stdout) as { pid: number };
    expect(status.pid).toBe(process.pid);
    const served = await credential('kept');
    expect(served.code, served.stderr).toBe(0);
    expect(JSON.parse(served.stdout).status.token).toBe('kept-across-the-takeover');
  });
});

// Electron review 2, F2: beside a daemon that takes the stop and never answers (frozen), the tray
// waited forever with no tray, window or dialog. Now its start fails in seconds with what to do,
// which the app shows in a dialog.
describe("the tray's broker beside a daemon that answers nothing", () => {
  let home: TempHome;
  let daemon: TestBroker;

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    await writeConfig(home.dir, 'profiles:\n  - { name: kept, provider: static }\n');
    daemon = await startTestBroker(home.dir);
  });

  afterAll(async () => {
    daemon?.process.kill('SIGCONT');
    await daemon?.stop();
    await home?.cleanup();
  });

  it('fails its start within seconds, naming the pid and how to end it, and starts no second broker', async () => {
    const pid = daemon.process.pid!;
    daemon.process.kill('SIGSTOP');
    const started = Date.now();
    const start = startTrayBroker(
      kubecredPaths({
        platform: process.platform,
        env: { KUBECRED_HOME: home.dir },
        homedir: os.homedir(),
        tmpdir: os.tmpdir(),
        uid: process.getuid?.() ?? 0,
      }),
      jsonLinesLogger(() => undefined),
    );
    await expect(start).rejects.toThrow(
      `a Kubecred broker (pid ${pid}) serves ${home.dir} and did not stop; stop it (kubecred stop, or kill ${pid}) and start Kubecred again`,
    );
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 60_000);
});
