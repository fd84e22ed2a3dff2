import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

// New-user finding 3: a broker started without DBUS_SESSION_BUS_ADDRESS (cron, ssh, an IDE
// started oddly) failed every keychain call, even for shells that had a keychain.
describe('a broker started without the session bus address', () => {
  const homes: TempHome[] = [];
  const brokers: TestBroker[] = [];
  const busSocket = /unix:path=([^,]+)/.exec(process.env.DBUS_SESSION_BUS_ADDRESS ?? '')?.[1];

  /** A broker whose environment names no bus; its user session keeps one (or none) in its runtime dir. */
  async function brokerWithoutBusAddress(sessionHasBus: boolean) {
    assertBuilt();
    expect(busSocket, 'the tests run in a session bus on a path socket').toBeDefined();
    const home = await makeTempHome();
    homes.push(home);
    const runtimeDir = path.join(home.dir, 'runtime');
    await mkdir(runtimeDir, { mode: 0o700 });
    if (sessionHasBus) await symlink(busSocket!, path.join(runtimeDir, 'bus'));
    await writeConfig(home.dir, 'profiles:\n  - { name: dev, provider: static }\n');
    brokers.push(await startTestBroker(home.dir, { DBUS_SESSION_BUS_ADDRESS: '', XDG_RUNTIME_DIR: runtimeDir }));
    return callersFor(() => home.dir);
  }

  afterAll(async () => {
    for (const broker of brokers) await broker.stop();
    for (const home of homes) await home.cleanup();
  });

  it('finds the session bus where a user session keeps it ($XDG_RUNTIME_DIR/bus) and uses the keychain', async () => {
    const { cli, credential } = await brokerWithoutBusAddress(true);
    const stored = await cli(['secret', 'set', 'dev', 'token'], 'dev-token-on-the-session-bus');
    expect(stored.code, stored.stderr).toBe(0);
    const served = await credential('dev');
    expect(served.code, served.stderr).toBe(0);
    expect(served.stdout).toContain('dev-token-on-the-session-bus');
  });

  it('with no session bus anywhere, fails clearly and says how to start the broker from a shell that has one', async () => {
    const { cli } = await brokerWithoutBusAddress(false);
    const stored = await cli(['secret', 'set', 'dev', 'token'], 'dev-token');
    expect(stored.code).toBe(1);
    expect(stored.stderr).toContain('the OS keychain could not store dev/token');
    expect(stored.stderr).toContain('start the broker from that shell: kubecred restart');
    // This shell reaches a keychain; doctor and status must still say the broker does not.
    const status = await cli(['status']);
    expect(status.stdout).toContain("keychain problem (the broker's): the OS keychain could not store dev/token");
    const doctor = await cli(['doctor']);
    expect(doctor.stdout).toMatch(/ok +keychain +OS keychain/);
    expect(doctor.stdout).toMatch(/FAIL +broker +broker keychain: the running broker cannot reach the keychain/);
    expect(doctor.stdout).toContain('kubecred restart');
  }, 60_000);
});
