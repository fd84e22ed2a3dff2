import type { ErrorCode } from '../../shared/api/errors.js';

const HTTP_STATUS: Record<ErrorCode, number> = {
  'bad-request': 400,
  unauthorized: 401,
  'not-found': 404,
  'too-large': 413,
  'unknown-profile': 404,
  'config-invalid': 409,
  'exec-info-invalid': 400,
  'secret-missing': 409,
  'secret-store-unavailable': 503,
  locked: 423,
  'pin-incorrect': 403,
  'token-unavailable': 503,
  'not-extractable': 409,
  denied: 403,
  'timed-out': 504,
  'provider-failed': 502,
  'broker-unavailable': 503,
  internal: 500,
};

/** A question that would let the request succeed, for a caller that can ask its user in a terminal. */
export type PromptNeeded =
  | { readonly kind: 'token-pin'; readonly token: string }
  | { readonly kind: 'passphrase' }
  | { readonly kind: 'mfa-code'; readonly profile: string }
  /** The secret of a login provider (Keystone's password or application credential secret). */
  | { readonly kind: 'login-secret'; readonly profile: string };

/**
 * A failure to report to a caller: what went wrong (message) and what to do (hint).
 * Messages must never contain a secret; providers quote only stderr, redacted.
 */
export class BrokerError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly hint?: string,
    readonly prompt?: PromptNeeded,
    /**
     * The message without what it quotes of a foreign program's output: what the audit trail
     * keeps. Redaction is a best effort; a file that lasts should not depend on it.
     */
    readonly auditMessage?: string,
  ) {
    super(message);
    this.name = 'BrokerError';
  }

  get httpStatus(): number {
    return HTTP_STATUS[this.code];
  }

  toBody(): { error: { code: string; message: string; hint?: string } } {
    return { error: { code: this.code, message: this.message, ...(this.hint ? { hint: this.hint } : {}) } };
  }
}

export function asBrokerError(error: unknown): BrokerError {
  if (error instanceof BrokerError) return error;
  return new BrokerError(
    'internal',
    `internal error: ${(error as Error)?.message ?? String(error)}`,
    'see the broker log; please report this',
  );
}
