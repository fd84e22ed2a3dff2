import { describe, expect, it } from 'vitest';
import { IMPORTED_ID_TOKEN_FIELD, takeImportedIdToken } from '../../../src/main/providers/oidc/importedIdToken.js';
import type { OidcProfileConfig } from '../../../src/shared/config/schema.js';
import { MemorySecretStore } from '../../support/fakes/memorySecretStore.js';

const NOW = Date.parse('2026-12-07T12:00:00Z');
const profile = {
  name: 'legacy',
  provider: 'oidc',
  issuer: 'https://login.corp.example/realms/k8s',
  clientId: 'kubernetes',
} as OidcProfileConfig;
const ref = { profile: 'legacy', field: IMPORTED_ID_TOKEN_FIELD };

function jwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'RS256' })}.${part(claims)}.c2lnbmF0dXJl`;
}
const claims = {
  iss: 'https://login.corp.example/realms/k8s/',
  aud: ['other', 'kubernetes'],
  sub: 'carol',
  email: 'carol@corp.example',
  exp: NOW / 1000 + 50 * 60,
};

// New user review 4, N3: a legacy user's ID token, still valid at import, keeps the context working.
describe('the ID token a legacy kubeconfig held', () => {
  const take = async (idToken: string) => {
    const store = new MemorySecretStore();
    await store.set(ref, idToken);
    const taken = await takeImportedIdToken(store, profile, { clockSkewMs: 0, nowMs: NOW });
    return { taken, left: await store.get(ref) };
  };

  it('is served while it lives, as the account it names, and taken from the store on first read', async () => {
    const token = jwt(claims);
    const { taken, left } = await take(token);
    expect(taken).toMatchObject({ token, account: 'carol@corp.example', expiresAt: new Date(claims.exp * 1000) });
    expect(left).toBeUndefined();
  });

  it("is dropped, unserved, when it is another issuer's or client's, too near its end, or no JWT", async () => {
    for (const idToken of [
      jwt({ ...claims, iss: 'https://evil.example' }),
      jwt({ ...claims, aud: 'someone-else' }),
      jwt({ ...claims, exp: NOW / 1000 + 30 }),
      jwt({ ...claims, exp: NOW / 1000 - 3600 }),
      jwt({ ...claims, sub: '' }),
      'expired.id.token',
      'not-a-jwt',
    ]) {
      const { taken, left } = await take(idToken);
      expect([idToken, taken, left]).toEqual([idToken, undefined, undefined]);
    }
  });

  it('is nothing when none was imported', async () => {
    expect(await takeImportedIdToken(new MemorySecretStore(), profile, { clockSkewMs: 0, nowMs: NOW })).toBeUndefined();
  });
});
