import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

// New-user finding N17: a static profile with no secret was told to "run kubectl again for the
// plugin's own words" (it has no plugin), at a raw ISO time, and not how to store the token.
describe('a static profile with no secret stored', () => {
  let home: TempHome;
  let broker: TestBroker;
  const { cli, credential } = callersFor(() => home.dir);
  const lastError = async (): Promise<string> => {
    const report = JSON.parse((await cli(['status', '-o', 'json'])).stdout) as {
      profiles: Array<{ name: string; lastError: string | null }>;
    };
    return report.profiles.find((profile) => profile.name === 'demo')?.lastError ?? '';
  };

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    await writeConfig(home.dir, 'profiles:\n  - name: demo\n    provider: static\n');
    broker = await startTestBroker(home.dir);
  });
  afterAll(async () => {
    await broker?.stop();
    await home?.cleanup();
  });

  it('tells kubectl how to store the token: the command and the window’s form', async () => {
    const result = await credential('demo');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('kubecred secret set demo token');
    expect(result.stderr).toContain('Edit… → Bearer token');
    expect(result.stderr).not.toContain("plugin's own words");
  });

  it('after a restart, status recalls the failure at a local time, with no word of a plugin', async () => {
    await broker.stop();
    broker = await startTestBroker(home.dir);
    await expect.poll(lastError, { timeout: 10_000 }).toContain('before the broker restarted');
    const recalled = await lastError();
    expect(recalled).toContain('kubecred secret set demo token');
    expect(recalled).toMatch(/\(at \d\d:\d\d, before the broker restarted\)$/);
    expect(recalled).not.toMatch(/\d{4}-\d\d-\d\dT/);
    expect(recalled).not.toContain("plugin's own words");
  });
});
