import { z } from 'zod';

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
  'provider-failed',
  'broker-unavailable',
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const errorBodySchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    hint: z.string().optional(),
  }),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** The one-line form a shim prints on stderr. */
export function renderErrorLine(error: { message: string; hint?: string | undefined }): string {
  if (!error.hint) return `kubecred: ${error.message}\n`;
  return `kubecred: ${error.message}. ${error.hint.charAt(0).toUpperCase()}${error.hint.slice(1)}\n`;
}
