import { BrokerClient } from '../../client/brokerClient.js';
import type { KubecredPaths } from '../../platform/paths.js';

/**
 * Which configured tokens the running broker sees, by name; undefined when no broker runs or it
 * cannot say. Starts no broker: doctor compares the broker's view with its own only when one runs.
 */
export async function probeBrokerTokens(paths: KubecredPaths): Promise<ReadonlyMap<string, boolean> | undefined> {
  try {
    const answer = await new BrokerClient(paths).call('tokens');
    if (answer.status !== 200) return undefined;
    const { tokens } = JSON.parse(answer.body) as { tokens?: Array<{ name?: unknown; present?: unknown }> };
    return new Map(
      (tokens ?? [])
        .filter((t) => typeof t.name === 'string' && typeof t.present === 'boolean')
        .map((t) => [t.name as string, t.present as boolean]),
    );
  } catch {
    // Not running, or an answer doctor cannot read: the broker check above says which.
    return undefined;
  }
}
