import {
  RESTART_FROM_THIS_SHELL,
  describeDifference,
  type SecretSourceVariable,
} from '../../../shared/api/secretSourceVariables.js';
import { fail, ok, warn, type Check } from '../finding.js';

export type BrokerProbe =
  | {
      readonly running: true;
      readonly pid: number;
      readonly version: string;
      readonly configError: string | null;
      readonly keychainError?: string | null;
      /** The variables this shell has set otherwise than the broker (where its keychain and tokens come from). */
      readonly differingSecretSources?: readonly SecretSourceVariable[];
    }
  | { readonly running: false; readonly reason: string };

/**
 * Is a broker answering on the socket? Not running is normal (the shim starts one on the first
 * kubectl call), so it is a warning; a broker that answers wrongly is broken.
 */
export function brokerCheck(probe: () => Promise<BrokerProbe>): Check {
  return {
    name: 'broker',
    async run() {
      let answer: BrokerProbe;
      try {
        answer = await probe();
      } catch (error) {
        return [
          fail(
            'broker',
            `answers, but not as expected: ${(error as Error).message}`,
            'restart it: kubecred lock, then stop the tray app or the kubecred daemon process and run any kubectl command',
          ),
        ];
      }
      if (!answer.running) {
        return [
          warn(
            'broker',
            answer.reason,
            'nothing to do: the first kubectl call starts it; or start it now with kubecred daemon',
          ),
        ];
      }
      const findings = [ok('broker', `running (pid ${answer.pid}, version ${answer.version})`)];
      if (answer.configError) {
        findings.push(
          warn(
            'broker config',
            `the running broker rejected config.yaml and serves the last good one: ${answer.configError}`,
            'fix config.yaml; the broker picks it up on its own',
          ),
        );
      }
      if (answer.keychainError) {
        // The shell's own keychain probe may pass: the broker can have been started elsewhere (cron, ssh, an IDE).
        findings.push(
          fail(
            'broker keychain',
            `the running broker cannot reach the keychain: ${answer.keychainError}`,
            'restart the broker from a shell where the keychain works: kubecred restart',
          ),
        );
      }
      if (answer.differingSecretSources?.length) {
        findings.push(
          fail(
            'broker environment',
            `${describeDifference(answer.pid, answer.differingSecretSources)}, so it may see another keychain or other tokens than the checks above`,
            RESTART_FROM_THIS_SHELL,
          ),
        );
      }
      return findings;
    },
  };
}
