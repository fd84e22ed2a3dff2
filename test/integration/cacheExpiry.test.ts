import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const V1_INFO = JSON.stringify({
  apiVersion: 'client.authentication.k8s.io/v1',
  kind: 'ExecCredential',
  spec: { interactive: false },
});
const LIFETIME_S = 3;

// A wrapped plugin that counts its calls, is slow (so callers pile up) and issues short-lived tokens.
const COUNTING_PLUGIN = (countFile: string) => `#!/bin/sh
echo call >> ${countFile}
n=$(wc -l < ${countFile} | tr -d ' ')
sleep 0.5
expiry=$(date -u -d "+${LIFETIME_S} seconds" +%Y-%m-%dT%H:%M:%SZ)
echo "{\\"apiVersion\\":\\"client.authentication.k8s.io/v1\\",\\"kind\\":\\"ExecCredential\\",\\"status\\":{\\"token\\":\\"token-$n\\",\\"expirationTimestamp\\":\\"$expiry\\"}}"
`;

describe('cache: expiry and single flight through the native shim', () => {
  let home: TempHome;
  let broker: TestBroker;
  let countFile: string;

  const calls = async () => (await readFile(countFile, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
  const ask = () =>
    run(NATIVE_SHIM, ['credential', 'counted'], { env: { ...brokerEnv(home.dir), KUBERNETES_EXEC_INFO: V1_INFO } });

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    countFile = path.join(home.dir, 'calls.txt');
    await writeFile(path.join(home.dir, 'plugin.sh'), COUNTING_PLUGIN(countFile), { mode: 0o755 });
    await writeConfig(
      home.dir,
      `profiles:\n  - name: counted\n    provider: exec\n    command: ${home.dir}/plugin.sh\n`,
    );
    broker = await startTestBroker(home.dir);
  });

  afterAll(async () => {
    await broker?.stop();
    await home?.cleanup();
  });

  it('answers 100 concurrent callers on a cold cache with one provider call', async () => {
    const results = await Promise.all(Array.from({ length: 100 }, ask));
    expect(results.filter((r) => r.code !== 0).map((r) => r.stderr)).toEqual([]);
    const tokens = new Set(results.map((r) => JSON.parse(r.stdout).status.token));
    expect(tokens).toEqual(new Set(['token-1']));
    expect(await calls()).toBe(1);
  });

  it('fetches a credential anew once it has expired', async () => {
    await new Promise((resolve) => setTimeout(resolve, (LIFETIME_S + 1) * 1000));
    const result = await ask();
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).status.token).toBe('token-2');
    expect(await calls()).toBe(2);
    const again = await ask();
    expect(JSON.parse(again.stdout).status.token).toBe('token-2');
    expect(await calls()).toBe(2);
  });
});
