import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

// New-user finding 19: one typo in config.yaml, then a reboot, took every cluster down: a
// broker that started on a broken file had no last good config.
describe('a broker started on a broken config.yaml', () => {
  let home: TempHome;
  let broker: TestBroker | undefined;
  const { cli, credential } = callersFor(() => home.dir);

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    await writeConfig(home.dir, 'profiles:\n  - name: lastgood\n    provider: static\n');
    broker = await startTestBroker(home.dir);
    expect((await cli(['secret', 'set', 'lastgood', 'token'], 'still-served-token')).code).toBe(0);
    await broker.stop();
    await writeFile(path.join(home.dir, 'config.yaml'), 'profiles:\n  - name: lastgood\n    provder: static\n');
    broker = await startTestBroker(home.dir);
  });
  afterAll(async () => {
    await broker?.stop();
    await home?.cleanup();
  });

  it('serves from the last good config, kept 0600 in the state dir, and says what is wrong', async () => {
    const served = await credential('lastgood');
    expect(served.code, served.stderr).toBe(0);
    expect(served.stdout).toContain('still-served-token');
    expect((await stat(path.join(home.dir, 'state', 'config.last-good.yaml'))).mode & 0o777).toBe(0o600);
    const status = await cli(['status']);
    expect(status.stdout + status.stderr).toMatch(/unknown key "provder" \(did you mean "provider"\?\)/);
  });
});
