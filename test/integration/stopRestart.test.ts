import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonsOf, writeConfig } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

// New-user finding 4: there was no way to stop or restart the broker but kill.
describe('kubecred stop and restart', () => {
  let home: TempHome;
  const { cli, credential } = callersFor(() => home.dir);
  const socket = () => path.join(home.dir, 'run', 'broker.sock');

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    await writeConfig(home.dir, 'profiles:\n  - { name: restart-dev, provider: static }\n');
  });
  afterAll(async () => {
    await cli(['stop']);
    await home?.cleanup();
  });

  it('restart starts a broker from this shell; stop ends it cleanly; the next kubectl call brings one back', async () => {
    const started = await cli(['restart']);
    expect(started.code, started.stderr).toBe(0);
    expect(started.stderr).toContain('kubecred: started the broker; its log is');
    const [first] = await daemonsOf(home.dir);
    expect(first).toBeGreaterThan(0);
    expect((await cli(['secret', 'set', 'restart-dev', 'token'], 'dev-token-across-restarts')).code).toBe(0);

    const restarted = await cli(['restart']);
    expect(restarted.stderr).toContain('kubecred: restarted the broker');
    const [second] = await daemonsOf(home.dir);
    expect(second).not.toBe(first);
    expect(() => process.kill(first!, 0)).toThrow();

    const stopped = await cli(['stop']);
    expect(stopped.code).toBe(0);
    expect(stopped.stderr).toBe(`kubecred: stopped the broker (pid ${second})\n`);
    expect(await daemonsOf(home.dir)).toEqual([]);
    expect(existsSync(socket())).toBe(false);
    expect((await cli(['status'])).stdout).toContain('broker: not running');
    const again = await cli(['stop']);
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('kubecred: no broker is running\n');

    const served = await credential('restart-dev');
    expect(served.code, served.stderr).toBe(0);
    expect(served.stdout).toContain('dev-token-across-restarts');
  }, 60_000);

  // Electron review 2, F2: a broker whose event loop hangs (SIGSTOP stands in for a hung PKCS#11
  // reader) took the stop request and never answered, so stop, restart and the tray's takeover
  // waited forever in silence.
  it('stop against a broker that answers nothing says so in seconds, names its pid, and starts nothing beside it', async () => {
    expect((await cli(['restart'])).code).toBe(0);
    const [frozen] = await daemonsOf(home.dir);
    process.kill(frozen!, 'SIGSTOP');
    try {
      const started = Date.now();
      const stop = await cli(['stop']);
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(stop.code).toBe(1);
      expect(stop.stderr).toBe(
        `kubecred: the broker (pid ${frozen}) took the stop request but answered nothing in 5 s: it is hung or stopped. End it with: kill ${frozen} (kill -9 if it stays), then run the command again\n`,
      );
      const restart = await cli(['restart']);
      expect(restart.code).toBe(1);
      expect(await daemonsOf(home.dir)).toEqual([frozen]);
    } finally {
      process.kill(frozen!, 'SIGCONT');
    }
    // Once it runs again, the stop it took ends it (the request was already in).
    await expect.poll(() => daemonsOf(home.dir), { timeout: 15_000 }).not.toContain(frozen);
  }, 90_000);
});
