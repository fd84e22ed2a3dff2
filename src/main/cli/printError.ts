import { parseErrorBody, renderErrorLine } from '../../shared/api/errors.js';
import { printable } from '../../shared/printable.js';
import type { BrokerAnswer } from '../client/brokerClient.js';

/**
 * Prints a broker error answer as the one line a user reads; returns the exit code 1. An answer
 * that is not an error body (a proxy, something else on the socket) is quoted as printable text
 * only: whatever sent it does not get to drive the terminal.
 */
export function printBrokerError(answer: BrokerAnswer, stderr: NodeJS.WritableStream): number {
  const parsed = parseErrorBody(answer.body);
  stderr.write(
    parsed
      ? renderErrorLine(parsed.error)
      : `kubecred: the broker answered ${answer.status}: ${printable(answer.body, 300)}\n`,
  );
  return 1;
}
