import { BROKER_OPERATIONS } from '../../../shared/api/routes.js';
import { statusSchema } from '../../../shared/api/status.js';
import { differingVariables, secretSourceEnvironment } from '../../../shared/api/secretSourceVariables.js';
import { BrokerClient, BrokerUnreachableError } from '../../client/brokerClient.js';
import type { KubecredPaths } from '../../platform/paths.js';
import type { BrokerProbe } from '../checks/brokerCheck.js';

/** Asks the broker for its status, as `kubecred status` does, and never starts one. */
export async function probeBroker(
  paths: KubecredPaths,
  env: Readonly<Record<string, string | undefined>>,
): Promise<BrokerProbe> {
  try {
    const answer = await new BrokerClient(paths).call('status');
    if (answer.status !== 200) throw new Error(`GET ${BROKER_OPERATIONS.status.path} answered ${answer.status}`);
    const status = statusSchema.parse(JSON.parse(answer.body));
    return {
      running: true,
      pid: status.pid,
      version: status.version,
      configError: status.configError,
      keychainError: status.keychainError,
      differingSecretSources: differingVariables(secretSourceEnvironment(env), status.secretSources),
    };
  } catch (error) {
    if (error instanceof BrokerUnreachableError) return { running: false, reason: error.message };
    throw error;
  }
}
