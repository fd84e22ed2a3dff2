import { printable } from '../printable.js';

/** Every failure the broker reports has a stable code, a message and what to do about it. */
export const ERROR_CODES = [
  'bad-request',
  'unauthorized',
  'not-found',
  'too-large',
  'unknown-profile',
  'config-invalid',
  'exec-info-invalid',
  'secret-missing',
  'secret-store-unavailable',
  'locked',
  'pin-incorrect',
  'token-unavailable',
  'not-extractable',
  'denied',
  'timed-out',
  'provider-failed',
  'broker-unavailable',
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string; readonly hint?: string };
}

/**
 * Reads an error answer without zod: this sits on the exec plugin's path, where loading a
 * schema library would cost more than the whole request.
 */
export function parseErrorBody(text: string): ErrorBody | undefined {
  try {
    const json = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; hint?: unknown } };
    const error = json?.error;
    if (!error || typeof error.code !== 'string' || typeof error.message !== 'string') return undefined;
    return {
      error: {
        code: error.code,
        message: error.message,
        ...(typeof error.hint === 'string' ? { hint: error.hint } : {}),
      },
    };
  } catch {
    return undefined;
  }
}

/**
 * The one-line form a shim prints on stderr. A message may carry a profile name from argv or
 * an issuer's words: whatever reaches the terminal is printable text, one line.
 */
export function renderErrorLine(error: { message: string; hint?: string | undefined }): string {
  const message = printable(error.message);
  if (!error.hint) return `kubecred: ${message}\n`;
  const hint = printable(error.hint);
  return `kubecred: ${message}. ${hint.charAt(0).toUpperCase()}${hint.slice(1)}\n`;
}
