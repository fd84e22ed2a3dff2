import { execa } from 'execa';
import { BrokerError } from '../core/brokerError.js';

export interface KubectlResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** kubectl as the enrollment drives it: a context, arguments, and what goes on stdin. */
export interface Kubectl {
  run(args: readonly string[], input?: string): Promise<KubectlResult>;
}

const CALL_TIMEOUT_MS = 60_000;
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

/**
 * The user's own kubectl, in the user's environment (KUBECONFIG, an exec plugin's variables):
 * the enrollment reaches the cluster exactly as the person's kubectl does, through Kubecred or not.
 */
export function userKubectl(command: string, env: NodeJS.ProcessEnv): Kubectl {
  return {
    async run(args, input) {
      try {
        const result = await execa(command, [...args], {
          env,
          extendEnv: false,
          input: input ?? '',
          reject: false,
          timeout: CALL_TIMEOUT_MS,
          maxBuffer: MAX_OUTPUT_BYTES,
          stripFinalNewline: false,
        });
        if (result.timedOut)
          throw new BrokerError(
            'timed-out',
            `kubectl ${args[0] ?? ''} did not answer in ${CALL_TIMEOUT_MS / 1000} s`,
            'check that the cluster of the context is reachable: kubectl --context <context> get --raw /version',
          );
        return { exitCode: result.exitCode ?? 1, stdout: String(result.stdout), stderr: String(result.stderr) };
      } catch (error) {
        if (error instanceof BrokerError) throw error;
        if ((error as NodeJS.ErrnoException).code === 'ENOENT')
          throw new BrokerError(
            'bad-request',
            `kubectl was not found (${command})`,
            'install kubectl, or put it on PATH, then enroll again',
          );
        throw error;
      }
    },
  };
}
