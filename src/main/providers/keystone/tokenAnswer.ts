import { z } from 'zod';
import { parseServerTimestamp } from '../../../shared/serverTimestamp.js';
import { notAToken, type Attempt } from './keystoneErrors.js';
import type { HttpAnswer } from './postJson.js';

// Keystone may write expires_at without an offset (application credentials): that is UTC.
const timestamp = z
  .string()
  .transform(
    (text, context) =>
      parseServerTimestamp(text) ?? (context.addIssue({ code: 'custom', message: 'not a timestamp' }), z.NEVER),
  );

/** The part of Keystone's token body Kubecred relies on; the rest (roles, catalog) is ignored. */
const tokenBody = z.object({
  token: z.object({
    expires_at: timestamp,
    issued_at: timestamp.optional(),
    user: z.object({ id: z.string().min(1) }),
  }),
});

export interface KeystoneToken {
  readonly token: string;
  readonly expiresAt: Date;
  readonly userId: string;
}

/**
 * The token from X-Subject-Token, and its expiry. expires_at is on Keystone's clock; when
 * this machine's clock is behind, trusting it alone would hand out a token Keystone already
 * considers expired. So the lifetime (expires_at - issued_at) is also counted from when the
 * request was sent here, and the earlier of the two wins.
 */
export function readToken(answer: HttpAnswer, attempt: Attempt, sentAt: number): KeystoneToken {
  const token = answer.header('x-subject-token');
  if (token === undefined || token.trim() === '') throw notAToken(attempt, 'without an X-Subject-Token header');
  let json: unknown;
  try {
    json = JSON.parse(answer.body);
  } catch {
    throw notAToken(attempt, `with something that is not JSON (${answer.header('content-type') ?? 'no content type'})`);
  }
  const parsed = tokenBody.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw notAToken(
      attempt,
      `its token body is not a Keystone v3 token (${issue ? `${issue.path.join('.')}: ${issue.message}` : 'unexpected shape'})`,
    );
  }
  const expiresAt = parsed.data.token.expires_at;
  const issuedAt = parsed.data.token.issued_at;
  const byLifetime = issuedAt === undefined ? expiresAt : sentAt + (expiresAt - issuedAt);
  return {
    token: token.trim(),
    expiresAt: new Date(Math.min(expiresAt, byLifetime)),
    userId: parsed.data.token.user.id,
  };
}
