import {
  RESTART_FROM_THIS_SHELL,
  describeDifference,
  differingVariables,
  secretSourceEnvironment,
} from '../../shared/api/secretSourceVariables.js';
import { statusSchema } from '../../shared/api/status.js';
import { BrokerClient } from '../client/brokerClient.js';
import type { CliContext } from './io.js';

/**
 * The line to add when the broker could not find a token (or the keychain) that this shell
 * may reach: it was started with another SOFTHSM2_CONF, OPENSC_CONF or DBUS_SESSION_BUS_ADDRESS.
 * Undefined when they match or the broker cannot say.
 */
export async function brokerEnvironmentNote({ paths, io }: CliContext): Promise<string | undefined> {
  try {
    const answer = await new BrokerClient(paths).call('status');
    if (answer.status !== 200) return undefined;
    const status = statusSchema.parse(JSON.parse(answer.body));
    const differing = differingVariables(secretSourceEnvironment(io.env), status.secretSources);
    return differing.length > 0
      ? `kubecred: ${describeDifference(status.pid, differing)}. ${RESTART_FROM_THIS_SHELL}\n`
      : undefined;
  } catch {
    return undefined;
  }
}
