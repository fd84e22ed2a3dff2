import { parseErrorBody, renderErrorLine } from '../../shared/api/errors.js';
import type { BrokerAnswer } from './brokerClient.js';

/** Prints a broker error answer as the one line a user reads; returns the exit code 1. */
export function printBrokerError(answer: BrokerAnswer, stderr: NodeJS.WritableStream): number {
  const parsed = parseErrorBody(answer.body);
  stderr.write(parsed ? renderErrorLine(parsed.error) : `kubecred: the broker answered ${answer.status}: ${answer.body.trim().slice(0, 300)}\n`);
  return 1;
}
