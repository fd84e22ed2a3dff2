import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

describe('approval policy on a broker with no window to ask in', () => {
  let home: TempHome;
  let broker: TestBroker;
  const { credential } = callersFor(() => home.dir);

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    const plugin = `["-c", "echo '{\\"apiVersion\\":\\"client.authentication.k8s.io/v1\\",\\"kind\\":\\"ExecCredential\\",\\"status\\":{\\"token\\":\\"t\\"}}'"]`;
    await writeConfig(home.dir, `profiles:\n  - { name: guarded, provider: exec, command: /bin/sh, args: ${plugin}, approval: always }\n  - { name: open, provider: exec, command: /bin/sh, args: ${plugin} }\n`);
    broker = await startTestBroker(home.dir);
  });
  afterAll(async () => {
    await broker?.stop();
    await home?.cleanup();
  });

  it('denies a guarded profile with a clear line naming the caller and what to do, and records it', async () => {
    const answer = await credential('guarded');
    expect(answer.code).toBe(1);
    expect(answer.stdout).toBe('');
    expect(answer.stderr).toMatch(/profile "guarded" needs your approval for \S+ and there is no window to ask in\. Approve it in the Kubecred app/);
    await expect.poll(async () => (await readFile(path.join(home.dir, 'state', 'audit.jsonl'), 'utf8')).includes('"outcome":"denied"'), { timeout: 3000 }).toBe(true);
  });

  it('serves profiles whose policy is never without asking', async () => {
    expect((await credential('open')).code).toBe(0);
  });
});
