import { BrokerClient, BrokerUnreachableError, type BrokerAnswer } from './brokerClient.js';
import type { CliContext } from './io.js';
import { startDaemon } from './startDaemon.js';

/** Sends a request; when no broker answers, starts the daemon and retries once. */
export async function requestStartingBroker(context: CliContext, send: (client: BrokerClient) => Promise<BrokerAnswer>): Promise<BrokerAnswer> {
  const client = new BrokerClient(context.paths);
  try {
    return await send(client);
  } catch (error) {
    if (!(error instanceof BrokerUnreachableError)) throw error;
  }
  try {
    await startDaemon(context);
  } catch (error) {
    throw new Error(`the Kubecred broker is not running and could not be started: ${(error as Error).message}`);
  }
  return send(client);
}
