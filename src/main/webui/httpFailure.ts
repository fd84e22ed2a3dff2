import { BrokerError } from '../core/brokerError.js';

/**
 * A refusal of the web UI server: the status to answer and the error body the page shows.
 * Not a BrokerError, whose status follows from its code: the web UI also answers statuses of
 * its own (405, 415, a refused Origin) that no broker error code stands for. Broker errors
 * that reach it keep their code, status, hint and field (toFailure).
 */
export class HttpFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly hint?: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** The broker's own errors keep their code, message, hint and field; anything else stays vague. */
export function toFailure(error: unknown): HttpFailure {
  if (error instanceof HttpFailure) return error;
  if (error instanceof BrokerError) {
    // A profile form's error (ProfileInvalidError) names its field; the page marks it.
    const field = (error as { field?: unknown }).field;
    return new HttpFailure(
      error.httpStatus,
      error.code,
      error.message,
      error.hint,
      typeof field === 'string' ? field : undefined,
    );
  }
  return new HttpFailure(500, 'internal', 'internal error: see the broker log');
}
