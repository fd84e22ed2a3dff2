import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DAEMON_NODE_FLAGS } from '../../src/main/platform/daemonNodeFlags.js';
import { brokerEnv, daemonsOf, writeConfig } from '../support/broker.js';
import { KUBECRED_CLI, NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const V1BETA1_INFO = JSON.stringify({
  apiVersion: 'client.authentication.k8s.io/v1beta1',
  kind: 'ExecCredential',
  spec: { interactive: false },
});
const PLUGIN =
  'profiles:\n  - name: wrapped\n    provider: exec\n    command: /bin/sh\n    apiVersion: client.authentication.k8s.io/v1beta1\n    args: ["-c", "echo \'{\\"apiVersion\\":\\"client.authentication.k8s.io/v1beta1\\",\\"kind\\":\\"ExecCredential\\",\\"status\\":{\\"token\\":\\"handed-over\\"}}\'"]\n';

describe('no broker running', () => {
  let home: TempHome | undefined;

  afterEach(async () => {
    if (!home) return;
    const pid = Number.parseInt(await readFile(path.join(home.dir, 'run', 'broker.lock'), 'utf8').catch(() => ''), 10);
    if (pid > 0) process.kill(pid, 'SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await home.cleanup();
    home = undefined;
  });

  it.each([
    // Issue 32: one Node start on the way to the first answer, not two (the CLI's, then the daemon's).
    ['the native shim starts the daemon itself', NATIVE_SHIM, []],
    ['the Node CLI starts the daemon', process.execPath, [KUBECRED_CLI]],
  ])('%s and answers', async (_name, command, prefix) => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    await writeConfig(home.dir, PLUGIN);
    const result = await run(command, [...prefix, 'credential', 'wrapped'], {
      env: { ...brokerEnv(home.dir), KUBERNETES_EXEC_INFO: V1BETA1_INFO, KUBECRED_CLI },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      status: { token: 'handed-over' },
    });
    const status = await run(process.execPath, [KUBECRED_CLI, 'status', '-o', 'json'], { env: brokerEnv(home.dir) });
    expect(JSON.parse(status.stdout).running).toBe(true);
    // Either way the broker runs with the daemon's Node flags (a small young generation).
    const [pid] = await daemonsOf(home.dir);
    const [cmdline, environ] = await Promise.all(
      ['cmdline', 'environ'].map((file) => readFile(`/proc/${pid}/${file}`, 'utf8')),
    );
    const flags = [...cmdline!.split('\0'), ...environ!.split('\0').filter((v) => v.startsWith('NODE_OPTIONS='))];
    expect(flags.join(' ')).toContain(DAEMON_NODE_FLAGS.join(' '));
  });

  it('many callers at once start one broker between them', async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    await writeConfig(home.dir, PLUGIN);
    const env = { ...brokerEnv(home.dir), KUBERNETES_EXEC_INFO: V1BETA1_INFO, KUBECRED_CLI };
    const results = await Promise.all(
      Array.from({ length: 8 }, () => run(NATIVE_SHIM, ['credential', 'wrapped'], { env })),
    );
    expect(results.map((r) => r.code)).toEqual(Array(8).fill(0));
    const log = await readFile(path.join(home.dir, 'state', 'daemon.log'), 'utf8');
    expect(log.match(/broker listening/g)).toHaveLength(1);
    // Every broker the losers started has given up by the time the callers returned.
    expect(await daemonsOf(home.dir)).toHaveLength(1);
  });

  it('fails with one clear line when the broker cannot be started', async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    const result = await run(NATIVE_SHIM, ['credential', 'wrapped'], {
      env: { ...brokerEnv(home.dir), KUBERNETES_EXEC_INFO: V1BETA1_INFO, KUBECRED_CLI: '/nonexistent/kubecred' },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('kubecred:');
  });
});
