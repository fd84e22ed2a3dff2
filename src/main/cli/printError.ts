import { errorBodySchema, renderErrorLine } from '../../shared/api/errors.js';
import type { BrokerAnswer } from './brokerClient.js';

/** Prints a broker error answer as the one line a user reads; returns the exit code 1. */
export function printBrokerError(answer: BrokerAnswer, stderr: NodeJS.WritableStream): number {
  let json: unknown;
  try {
    json = JSON.parse(answer.body);
  } catch {
    json = undefined;
  }
  const parsed = errorBodySchema.safeParse(json);
  stderr.write(parsed.success ? renderErrorLine(parsed.data.error) : `kubecred: the broker answered ${answer.status}: ${answer.body.trim().slice(0, 300)}\n`);
  return 1;
}
