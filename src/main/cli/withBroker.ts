import { BrokerClient, BrokerUnreachableError, type BrokerAnswer } from '../client/brokerClient.js';
import type { CliContext } from './io.js';
import { startDaemon } from './startDaemon.js';

/**
 * Tries the request this many times, a daemon start before each retry. Twice is not always
 * enough: when many callers find the broker killed at once, the one that answered `startDaemon`
 * may be a late starter that gives way to another caller's broker a moment later. Asking again
 * is safe: a broker request is idempotent.
 */
const ATTEMPTS = 3;

/** Sends a request; when no broker answers, starts the daemon and tries again. */
export async function requestStartingBroker(
  context: CliContext,
  send: (client: BrokerClient) => Promise<BrokerAnswer>,
): Promise<BrokerAnswer> {
  const client = new BrokerClient(context.paths);
  for (let attempt = 1; ; attempt++) {
    try {
      return await send(client);
    } catch (error) {
      if (!(error instanceof BrokerUnreachableError) || attempt === ATTEMPTS) throw error;
    }
    try {
      await startDaemon(context);
    } catch (error) {
      throw new Error(`the Kubecred broker is not running and could not be started: ${(error as Error).message}`);
    }
  }
}
