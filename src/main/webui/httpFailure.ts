/** A refusal of the web UI server: the status to answer and the error body the page shows. */
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
  const e = error as { code?: unknown; message?: unknown; httpStatus?: unknown; hint?: unknown; field?: unknown };
  if (typeof e?.code === 'string' && typeof e.message === 'string' && typeof e.httpStatus === 'number') {
    return new HttpFailure(e.httpStatus, e.code, e.message, typeof e.hint === 'string' ? e.hint : undefined, typeof e.field === 'string' ? e.field : undefined);
  }
  return new HttpFailure(500, 'internal', 'internal error: see the broker log');
}
