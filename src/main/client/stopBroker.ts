import type { KubecredPaths } from '../platform/paths.js';
import { BrokerClient, BrokerSilentError, type BrokerAnswer } from './brokerClient.js';

const STOP_WAIT_MS = 10_000;
/** A broker that answers nothing in this long is hung (or stopped): waiting longer only hides it. */
const STOP_ANSWER_MS = 5_000;

/**
 * Asks the running broker to stop and waits (10 s at most) until its process is gone.
 * `stopped`: a broker took the request (false when none ran); `exited`: its process is gone;
 * `silentMs`: a broker took the connection and answered nothing in that long, so it still runs.
 */
export async function stopBroker(
  paths: KubecredPaths,
  answerTimeoutMs = STOP_ANSWER_MS,
): Promise<{ stopped: boolean; exited?: boolean; pid?: number; failure?: BrokerAnswer; silentMs?: number }> {
  const client = new BrokerClient(paths);
  let answer;
  try {
    answer = await client.call('stop', { answerTimeoutMs });
  } catch (error) {
    return error instanceof BrokerSilentError ? { stopped: false, silentMs: error.waitedMs } : { stopped: false };
  }
  if (answer.status !== 202) return { stopped: false, failure: answer };
  const { pid } = JSON.parse(answer.body) as { pid: number };
  const deadline = Date.now() + STOP_WAIT_MS;
  while (Date.now() < deadline && processAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 50));
  return { stopped: true, exited: !processAlive(pid), pid };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
