import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { idTokenVerifier } from '../../../src/main/demo/idTokenVerifier.js';

const now = Date.parse('2026-01-01T00:00:00Z');

function jwt(
  privateKey: ReturnType<typeof generateKeyPairSync>['privateKey'],
  alg: 'RS256' | 'ES256',
  payload: object,
  kid = 'k1',
): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signed = `${encode({ alg, kid, typ: 'JWT' })}.${encode(payload)}`;
  const signature = sign(
    'sha256',
    Buffer.from(signed),
    alg === 'ES256' ? { key: privateKey, dsaEncoding: 'ieee-p1363' } : privateKey,
  );
  return `${signed}.${signature.toString('base64url')}`;
}

describe('idTokenVerifier', () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keys = [
    { ...rsa.publicKey.export({ format: 'jwk' }), kid: 'k1' },
    { ...ec.publicKey.export({ format: 'jwk' }), kid: 'k2' },
  ];
  const check = idTokenVerifier({ issuer: 'https://issuer', audience: 'kubernetes', keys, now: () => now });
  const good = { iss: 'https://issuer', aud: 'kubernetes', sub: 'alice', exp: now / 1000 + 60 };

  it("accepts a token signed by one of the issuer's keys, for our audience, not expired", () => {
    expect(check(jwt(rsa.privateKey, 'RS256', good))).toBe(true);
    expect(check(jwt(ec.privateKey, 'ES256', { ...good, aud: ['other', 'kubernetes'] }, 'k2'))).toBe(true);
  });

  it.each([
    ['another issuer', { ...good, iss: 'https://evil' }],
    ['another audience', { ...good, aud: 'other' }],
    ['an expired token', { ...good, exp: now / 1000 - 1 }],
  ])('refuses %s', (_name, payload) => {
    expect(check(jwt(rsa.privateKey, 'RS256', payload))).toBe(false);
  });

  it('refuses a forged signature and junk', () => {
    const forger = generateKeyPairSync('rsa', { modulusLength: 2048 });
    expect(check(jwt(forger.privateKey, 'RS256', good))).toBe(false);
    expect(check('not.a.jwt')).toBe(false);
    expect(check('opaque-token')).toBe(false);
  });
});
