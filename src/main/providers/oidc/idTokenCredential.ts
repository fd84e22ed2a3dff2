import { z } from 'zod';
import type { Credential } from '../../../shared/credential.js';
import { BrokerError } from '../../core/brokerError.js';

/** The claims Kubecred relies on; openid-client has already checked iss, aud, exp and the nonce. */
const idTokenClaims = z.object({
  iss: z.string().min(1),
  sub: z.string().min(1),
  exp: z.number().int().positive(),
  email: z.string().optional().catch(undefined),
  preferred_username: z.string().optional().catch(undefined),
});

/**
 * The ID token as the bearer Kubernetes checks. expiresAt is exp minus the profile's clock
 * skew, so a token is renewed before an API server whose clock runs ahead rejects it; a token
 * that lives shorter than the skew keeps its own exp rather than being born expired.
 */
export function credentialFromIdToken(
  idToken: string,
  claims: unknown,
  options: { clockSkewMs: number; nowMs: number; profile: string },
): Credential {
  const parsed = idTokenClaims.safeParse(claims);
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join('.')))].join(', ');
    throw new BrokerError(
      'provider-failed',
      `the ID token for profile "${options.profile}" lacks usable claims (${fields})`,
      'check the issuer: Kubernetes needs iss, sub and exp in the ID token',
    );
  }
  const { iss, sub, exp, email, preferred_username: userName } = parsed.data;
  return {
    token: idToken,
    expiresAt: new Date(expiryMs(exp, options.clockSkewMs, options.nowMs)),
    identity: identityOf(iss, sub),
    account: email ?? userName ?? sub,
  };
}

export function expiryMs(expSeconds: number, clockSkewMs: number, nowMs: number): number {
  const exp = expSeconds * 1000;
  const early = exp - clockSkewMs;
  return early > nowMs ? early : exp;
}

/** Issuer and subject: what the API server maps to a user (the `iss#sub` of its default username claim). */
export function identityOf(iss: string, sub: string): string {
  return `${iss} ${sub}`;
}
