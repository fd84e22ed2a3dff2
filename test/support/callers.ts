import { brokerEnv } from './broker.js';
import { KUBECRED_CLI, NATIVE_SHIM } from './repo.js';
import { run, type RunResult } from './run.js';

export const V1_EXEC_INFO = JSON.stringify({
  apiVersion: 'client.authentication.k8s.io/v1',
  kind: 'ExecCredential',
  spec: { interactive: false },
});

/** The two ways tests talk to a broker in a home: the kubecred CLI, and the native shim as kubectl runs it. */
export function callersFor(home: () => string, extraEnv: () => Record<string, string> = () => ({})) {
  const env = () => ({ ...brokerEnv(home()), ...extraEnv() });
  return {
    cli: (args: string[], input?: string): Promise<RunResult> =>
      run(process.execPath, [KUBECRED_CLI, ...args], { env: env(), ...(input !== undefined ? { input } : {}) }),
    credential: (profile: string): Promise<RunResult> =>
      run(NATIVE_SHIM, ['credential', profile], { env: { ...env(), KUBERNETES_EXEC_INFO: V1_EXEC_INFO } }),
  };
}
