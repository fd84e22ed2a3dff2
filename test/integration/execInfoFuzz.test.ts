import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { V1_EXEC_INFO } from '../support/callers.js';
import { mutateText, seededRandom } from '../support/fuzz.js';
import { KUBECRED_CLI, NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const TOKEN = 'exec-info-fuzz-token-93ab';
const KNOWN = new Set(['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1']);
const CASES = { native: Number(process.env.FUZZ_CASES ?? 300), node: 30 };

/** Environment variables cannot hold NUL; everything else goes. */
function asEnvValue(text: string): string {
  return text.replaceAll('\0', '');
}

describe('KUBERNETES_EXEC_INFO fuzzed through both shims', () => {
  let home: TempHome;
  let broker: TestBroker;

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    const plugin = path.join(home.dir, 'plugin.sh');
    // The wrapped plugin answers in whichever version it was asked, as a real one does.
    await writeFile(
      plugin,
      `#!/bin/sh\nv=$(printf '%s' "$KUBERNETES_EXEC_INFO" | sed -n 's/.*"apiVersion":"\\([^"]*\\)".*/\\1/p')\necho "{\\"apiVersion\\":\\"$v\\",\\"kind\\":\\"ExecCredential\\",\\"status\\":{\\"token\\":\\"${TOKEN}\\"}}"\n`,
      { mode: 0o755 },
    );
    await writeConfig(home.dir, `profiles:\n  - name: wrapped\n    provider: exec\n    command: ${plugin}\n`);
    broker = await startTestBroker(home.dir);
  });

  afterAll(async () => {
    await broker?.stop();
    await home?.cleanup();
  });

  it.each([
    ['the native shim', NATIVE_SHIM, [] as string[], 'native' as const],
    ['the Node CLI', process.execPath, [KUBECRED_CLI], 'node' as const],
  ])(
    '%s: a whole ExecCredential on stdout, or nothing and one line on stderr',
    async (_name, command, prefix, kind) => {
      const random = seededRandom();
      let served = 0;
      for (let i = 0; i < CASES[kind]; i++) {
        const info = asEnvValue(mutateText(random, V1_EXEC_INFO));
        const context = `seed ${random.seed}, case ${i}: ${JSON.stringify(info.slice(0, 120))}`;
        const result = await run(command, [...prefix, 'credential', 'wrapped'], {
          env: { ...brokerEnv(home.dir), KUBERNETES_EXEC_INFO: info },
          timeoutMs: 20_000,
        });
        if (result.code === 0) {
          served++;
          const answer = JSON.parse(result.stdout) as { apiVersion: string; status: { token: string } };
          expect(KNOWN.has(answer.apiVersion), context).toBe(true);
          expect(answer.status.token, context).toBe(TOKEN);
        } else {
          expect(result.code, context).toBe(1);
          expect(result.stdout, context).toBe('');
          expect(result.stderr.trim().split('\n'), `${context}: ${result.stderr}`).toHaveLength(1);
          expect(result.stderr.length, context).toBeLessThan(600);
          expect(result.stderr, context).toMatch(/^kubecred/);
        }
      }
      process.stderr.write(`exec info fuzz, ${kind}: ${served} of ${CASES[kind]} still valid and served\n`);
      expect(broker.process.exitCode).toBeNull();
    },
    180_000,
  );
});
