import { brokerEnv } from './broker.js';
import { KUBECRED_CLI, NATIVE_SHIM } from './repo.js';
import { run, type RunResult } from './run.js';

export const V1_EXEC_INFO = JSON.stringify({
  apiVersion: 'client.authentication.k8s.io/v1',
  kind: 'ExecCredential',
  spec: { interactive: false },
});

/** How a caller is started: as it is, or wrapped (in private mounts, say). */
export type Launch = (command: string, args: readonly string[]) => { command: string; args: string[] };

/**
 * The two ways tests talk to a broker in a home: the kubecred CLI, and the native shim as kubectl
 * runs it. `extraEnv` goes over this process's environment; a variable given as undefined is unset.
 */
export function callersFor(
  home: () => string,
  extraEnv: () => Record<string, string | undefined> = () => ({}),
  launch: () => Launch = () => (command, args) => ({ command, args: [...args] }),
) {
  const env = () =>
    Object.fromEntries(
      Object.entries({ ...brokerEnv(home()), ...extraEnv() }).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    );
  const start = (program: string, args: readonly string[], options: Parameters<typeof run>[2]) => {
    const { command, args: wrapped } = launch()(program, args);
    return run(command, wrapped, options);
  };
  return {
    cli: (args: string[], input?: string): Promise<RunResult> =>
      start(process.execPath, [KUBECRED_CLI, ...args], { env: env(), ...(input !== undefined ? { input } : {}) }),
    credential: (profile: string): Promise<RunResult> =>
      start(NATIVE_SHIM, ['credential', profile], { env: { ...env(), KUBERNETES_EXEC_INFO: V1_EXEC_INFO } }),
  };
}
