import type { Validity } from '../provider.js';
import type { KeystoneHttp } from './postJson.js';

/** A validation runs beside a caller that is already served: it must be quick or say nothing. */
const VALIDATION_TIMEOUT_MS = 3_000;

/**
 * GET /v3/auth/tokens with the token as both X-Auth-Token and X-Subject-Token: Keystone's
 * default policy lets a token validate itself, so no admin token is needed. A revoked or expired
 * token fails as the caller (401) or as the subject (404); 200 means Keystone still honours it.
 * Anything else (5xx, a proxy's 403, no answer) tells nothing, and the token is kept.
 */
export async function validateKeystoneToken(
  http: KeystoneHttp,
  authUrl: string,
  token: string,
  signal: AbortSignal,
): Promise<Validity> {
  try {
    const answer = await http.get(
      `${authUrl}/auth/tokens?nocatalog`,
      { 'X-Auth-Token': token, 'X-Subject-Token': token },
      { signal, timeoutMs: VALIDATION_TIMEOUT_MS },
    );
    if (answer.status === 200) return 'valid';
    if (answer.status === 401 || answer.status === 404) return 'revoked';
    return 'unknown';
  } catch {
    return 'unknown';
  }
}
