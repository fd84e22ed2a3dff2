import { describe, expect, it } from 'vitest';
import { profileSchema, type OidcProfileConfig } from '../../../src/shared/config/schema.js';
import {
  authorizationParams,
  deviceAuthorizationParams,
} from '../../../src/main/providers/oidc/authorizationParams.js';
import { credentialFromIdToken, expiryMs, identityOf } from '../../../src/main/providers/oidc/idTokenCredential.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const EXP = NOW / 1000 + 3600;

function profile(extra: Record<string, unknown> = {}): OidcProfileConfig {
  const parsed = profileSchema.parse({
    name: 'p',
    provider: 'oidc',
    issuer: 'https://issuer.example',
    clientId: 'kubernetes',
    ...extra,
  });
  if (parsed.provider !== 'oidc') throw new Error('not oidc');
  return parsed;
}

describe('OIDC ID token to credential', () => {
  it('reports exp minus the clock skew, and iss + sub as the identity', () => {
    const credential = credentialFromIdToken(
      'header.payload.sig',
      { iss: 'https://issuer.example', sub: 'alice', exp: EXP, aud: 'kubernetes' },
      { clockSkewMs: 30_000, nowMs: NOW, profile: 'p' },
    );
    expect(credential).toEqual({
      token: 'header.payload.sig',
      expiresAt: new Date(EXP * 1000 - 30_000),
      identity: 'https://issuer.example alice',
      account: 'alice',
    });
    expect(identityOf('https://a', 'x y')).toBe('https://a x y');
  });

  it('names the account a person would recognise: the email, else the user name, else the subject', () => {
    const claims = { iss: 'https://issuer.example', sub: '8d1f', exp: EXP };
    const account = (extra: Record<string, unknown>) =>
      credentialFromIdToken('t', { ...claims, ...extra }, { clockSkewMs: 0, nowMs: NOW, profile: 'p' }).account;
    expect(account({ email: 'ada@example.com', preferred_username: 'ada' })).toBe('ada@example.com');
    expect(account({ preferred_username: 'ada' })).toBe('ada');
    expect(account({})).toBe('8d1f');
    expect(account({ email: 42 })).toBe('8d1f');
  });

  it("keeps a short-lived token's own exp rather than reporting it born expired", () => {
    expect(expiryMs(NOW / 1000 + 20, 30_000, NOW)).toBe(NOW + 20_000);
    expect(expiryMs(NOW / 1000 + 31, 30_000, NOW)).toBe(NOW + 1000);
    expect(expiryMs(NOW / 1000 + 600, 0, NOW)).toBe(NOW + 600_000);
  });

  it('names the claims it cannot use, never the token', () => {
    const attempt = () =>
      credentialFromIdToken(
        'secret.token.value',
        { iss: 'https://issuer.example', exp: 'soon' },
        { clockSkewMs: 0, nowMs: NOW, profile: 'p' },
      );
    expect(attempt).toThrow(/lacks usable claims \(sub, exp\)/);
    try {
      attempt();
    } catch (error) {
      expect(JSON.stringify(error) + String(error)).not.toContain('secret.token.value');
    }
  });
});

describe('OIDC authorization request parameters', () => {
  const fixed = { redirect_uri: 'http://127.0.0.1:5000/callback', state: 's', nonce: 'n', code_challenge: 'c' };

  it("asks for consent when offline_access is wanted (OIDC Core 11), PKCE S256, the profile's scopes", () => {
    expect(authorizationParams(profile(), fixed)).toEqual({
      prompt: 'consent',
      scope: 'openid offline_access',
      response_type: 'code',
      code_challenge_method: 'S256',
      ...fixed,
    });
    expect(authorizationParams(profile({ scopes: ['openid', 'email'] }), fixed)).not.toHaveProperty('prompt');
  });

  it('lets extraAuthParams choose the prompt or drop it, but not override the protocol', () => {
    const extra = {
      prompt: 'select_account',
      audience: 'k8s',
      state: 'evil',
      redirect_uri: 'https://evil.example',
      scope: 'admin',
      code_challenge_method: 'plain',
    };
    expect(authorizationParams(profile({ extraAuthParams: extra }), fixed)).toEqual({
      prompt: 'select_account',
      audience: 'k8s',
      scope: 'openid offline_access',
      response_type: 'code',
      code_challenge_method: 'S256',
      ...fixed,
    });
    expect(authorizationParams(profile({ extraAuthParams: { prompt: '' } }), fixed)).not.toHaveProperty('prompt');
  });

  it('sends the device request the scopes and extra parameters, without a prompt', () => {
    expect(deviceAuthorizationParams(profile({ extraAuthParams: { prompt: 'login', audience: 'k8s' } }))).toEqual({
      audience: 'k8s',
      scope: 'openid offline_access',
    });
  });
});
