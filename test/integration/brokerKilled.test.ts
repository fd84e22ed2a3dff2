import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, daemonsOf, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { V1_EXEC_INFO } from '../support/callers.js';
import { KUBECRED_CLI, NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { run, type RunResult } from '../support/run.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const TOKEN = 'survives-sigkill-token-41c2';

/** What kubectl needs from a caller: exit 0 with one whole ExecCredential, or non-zero, nothing on stdout and one line why. */
function expectWholeAnswerOrOneLine(result: RunResult, who: string): 'served' | 'failed' {
  if (result.code === 0) {
    const answer = JSON.parse(result.stdout) as { status: { token: string } };
    expect(answer.status.token, who).toBe(TOKEN);
    return 'served';
  }
  expect(result.stdout, `${who}: partial output`).toBe('');
  expect(result.stderr.trim().split('\n'), `${who}: ${result.stderr}`).toHaveLength(1);
  expect(result.stderr, who).toMatch(/^kubecred/);
  return 'failed';
}

describe('the broker killed with SIGKILL while callers wait', () => {
  let home: TempHome;
  let broker: TestBroker;

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    const plugin = path.join(home.dir, 'slow-plugin.sh');
    // Slow enough that every caller is waiting on the broker when it dies.
    await writeFile(
      plugin,
      `#!/bin/sh\nsleep 2\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"${TOKEN}"}}'\n`,
      { mode: 0o755 },
    );
    await writeConfig(home.dir, `profiles:\n  - name: slow\n    provider: exec\n    command: ${plugin}\n`);
    broker = await startTestBroker(home.dir);
  });

  afterAll(async () => {
    for (const pid of await daemonsOf(home.dir)) process.kill(pid, 'SIGTERM');
    await broker?.stop();
    await home?.cleanup();
  });

  it('every caller is served by the restarted broker; none ever sees partial JSON', async () => {
    const env = { ...brokerEnv(home.dir), KUBERNETES_EXEC_INFO: V1_EXEC_INFO };
    const callers = [
      ...Array.from({ length: 16 }, () => run(NATIVE_SHIM, ['credential', 'slow'], { env, timeoutMs: 60_000 })),
      ...Array.from({ length: 4 }, () =>
        run(process.execPath, [KUBECRED_CLI, 'credential', 'slow'], { env, timeoutMs: 60_000 }),
      ),
    ];
    await new Promise((resolve) => setTimeout(resolve, 800));
    broker.process.kill('SIGKILL');
    const results = await Promise.all(callers);
    const outcomes = results.map((result, i) => expectWholeAnswerOrOneLine(result, `caller ${i}`));
    // Asking is idempotent, so both shims ask again after the broker vanishes, and the broker
    // they start (one, whoever wins the lock) serves them all.
    expect(
      outcomes.filter((o) => o === 'served'),
      results.find((r) => r.code !== 0)?.stderr,
    ).toHaveLength(callers.length);

    // Whatever each caller saw, the next call works: a broker is (re)started and serves.
    const after = await run(NATIVE_SHIM, ['credential', 'slow'], { env, timeoutMs: 60_000 });
    expect(after.code, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout).status.token).toBe(TOKEN);
    expect(await daemonsOf(home.dir)).toHaveLength(1);
  }, 120_000);
});
