import {
  RESTART_FROM_THIS_SHELL,
  describeDifference,
  differingVariables,
  type SecretSourceEnvironment,
} from '../../shared/api/secretSourceVariables.js';
import { BrokerError } from '../core/brokerError.js';

/** The broker's own process and where its secrets come from, to compare with a caller's. */
export interface BrokerEnvironment {
  readonly pid: number;
  /** Read at each failure: the broker may adopt the session bus after it started. */
  secretSources(): SecretSourceEnvironment;
}

// A keychain or token the broker cannot reach may be one the caller's shell reaches.
const WHERE_SECRETS_FAIL = new Set(['secret-store-unavailable', 'token-unavailable']);

/**
 * The failure, saying so when the broker was started with another session bus or another
 * PKCS#11 configuration than the caller has: restarting it from the caller's shell is the fix,
 * and the raw D-Bus or "token not present" message alone points everywhere else.
 */
export function explainEnvironmentDifference(
  error: unknown,
  caller: SecretSourceEnvironment | undefined,
  broker: BrokerEnvironment | undefined,
): unknown {
  if (!(error instanceof BrokerError) || !caller || !broker || !WHERE_SECRETS_FAIL.has(error.code)) return error;
  const differing = differingVariables(caller, broker.secretSources());
  if (differing.length === 0) return error;
  return new BrokerError(
    error.code,
    `${error.message}; ${describeDifference(broker.pid, differing)}`,
    RESTART_FROM_THIS_SHELL,
    error.prompt,
    error.auditMessage,
  );
}
