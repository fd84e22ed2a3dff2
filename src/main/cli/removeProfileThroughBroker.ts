import { parseErrorBody } from '../../shared/api/errors.js';
import { printable } from '../../shared/printable.js';
import type { BrokerAnswer } from '../client/brokerClient.js';
import type { CliContext } from './io.js';
import { requestStartingBroker } from './withBroker.js';

/**
 * A profile leaves config.yaml through the broker: it forgets what it holds of the profile and
 * records the removal, so a profile of the same name added later starts with a clean slate.
 */
export function requestProfileRemoval(context: CliContext, profile: string): Promise<BrokerAnswer> {
  return requestStartingBroker(context, (client) => client.call('removeProfile', { params: { profile } }));
}

/** The same, for callers that go on only if it was removed. */
export async function removeProfileThroughBroker(context: CliContext, profile: string): Promise<void> {
  const answer = await requestProfileRemoval(context, profile);
  if (answer.status === 200) return;
  const parsed = parseErrorBody(answer.body);
  throw new Error(
    parsed ? parsed.error.message : `the broker answered ${answer.status}: ${printable(answer.body, 300)}`,
  );
}
