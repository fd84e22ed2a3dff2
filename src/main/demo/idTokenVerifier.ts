import { createPublicKey, verify, type JsonWebKey } from 'node:crypto';

export interface IdTokenCheck {
  readonly issuer: string;
  readonly audience: string;
  readonly keys: readonly (JsonWebKey & { kid?: string })[];
  readonly now?: () => number;
}

const ALGORITHMS: Record<string, { hash: string; dsaEncoding?: 'ieee-p1363' }> = {
  RS256: { hash: 'sha256' },
  ES256: { hash: 'sha256', dsaEncoding: 'ieee-p1363' },
  PS256: { hash: 'sha256' },
};

/**
 * What a kube-apiserver's OIDC authenticator checks of a bearer ID token: signature by one of
 * the issuer's keys, issuer, audience and expiry. The demo API stand-in uses it.
 */
export function idTokenVerifier({ issuer, audience, keys, now = Date.now }: IdTokenCheck): (token: string) => boolean {
  return (token) => {
    const parts = token.split('.');
    if (parts.length !== 3) return false;
    const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
    try {
      const header = JSON.parse(Buffer.from(headerPart, 'base64url').toString('utf8')) as {
        alg?: string;
        kid?: string;
      };
      const payload = JSON.parse(Buffer.from(payloadPart, 'base64url').toString('utf8')) as {
        iss?: string;
        aud?: string | string[];
        exp?: number;
      };
      const algorithm = ALGORITHMS[header.alg ?? ''];
      const jwk = keys.find((k) => header.kid === undefined || k.kid === header.kid);
      if (!algorithm || !jwk) return false;
      const key = createPublicKey({ key: jwk, format: 'jwk' });
      const signed = Buffer.from(`${headerPart}.${payloadPart}`);
      const signature = Buffer.from(signaturePart, 'base64url');
      const options =
        header.alg === 'PS256'
          ? { key, padding: 6, saltLength: 32 }
          : algorithm.dsaEncoding
            ? { key, dsaEncoding: algorithm.dsaEncoding }
            : key;
      if (!verify(algorithm.hash, signed, options, signature)) return false;
      const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
      return (
        payload.iss === issuer &&
        audiences.includes(audience) &&
        typeof payload.exp === 'number' &&
        payload.exp * 1000 > now()
      );
    } catch {
      return false;
    }
  };
}
