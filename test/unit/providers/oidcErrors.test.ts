import { AuthorizationResponseError, ResponseBodyError } from 'openid-client';
import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/main/core/brokerError.js';
import { within } from '../../../src/main/providers/oidc/deadline.js';
import { oauthErrorCode, oidcFailure } from '../../../src/main/providers/oidc/oidcErrors.js';

const where = { profile: 'prod', issuer: 'https://issuer.example', doing: 'refreshing the ID token' };

describe('OIDC failures as BrokerErrors', () => {
  it("quotes the issuer's error code and description, with a hint per code", () => {
    const error = new ResponseBodyError('server responded with an error', {
      cause: { error: 'invalid_client', error_description: 'client authentication failed' },
      response: new Response(null, { status: 401 }),
    });
    expect(oauthErrorCode(error)).toBe('invalid_client');
    expect(oidcFailure(error, where)).toMatchObject({
      code: 'provider-failed',
      message:
        'refreshing the ID token for profile "prod" failed: the issuer answered invalid_client: client authentication failed (HTTP 401)',
      hint: expect.stringContaining('kubecred secret set prod client-secret'),
    });
    const denied = new AuthorizationResponseError('authorization response from the server is an error', {
      cause: new URLSearchParams({ error: 'access_denied' }),
    });
    expect(oidcFailure(denied, where).hint).toBe('sign in again and allow the access: kubecred login prod');
  });

  it('names untrusted certificates and the caFile fix, and unreachable issuers', () => {
    const tls = new TypeError('fetch failed', {
      cause: Object.assign(new Error('self-signed certificate in certificate chain'), {
        code: 'SELF_SIGNED_CERT_IN_CHAIN',
      }),
    });
    expect(oidcFailure(tls, where)).toMatchObject({
      message: expect.stringContaining(
        'TLS certificate of https://issuer.example is not trusted (SELF_SIGNED_CERT_IN_CHAIN)',
      ),
      hint: expect.stringContaining('caFile'),
    });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(oidcFailure(refused, where).message).toBe(
      'refreshing the ID token for profile "prod" failed: cannot reach https://issuer.example (ECONNREFUSED: nothing listens on that port)',
    );
  });

  it('says what a bare "fetch failed" hid (new-user finding 11), and where to look next', () => {
    const blocked = new TypeError('fetch failed', { cause: new Error('bad port') });
    expect(oidcFailure(blocked, { ...where, doing: 'discovering the OIDC issuer' })).toMatchObject({
      message: 'discovering the OIDC issuer for profile "prod" failed: fetch failed (bad port)',
      hint: expect.stringContaining('kubecred doctor'),
    });
    const dns = new TypeError('fetch failed', {
      cause: Object.assign(new Error('getaddrinfo ENOTFOUND id.example.com'), { code: 'ENOTFOUND' }),
    });
    expect(oidcFailure(dns, where).message).toBe(
      'refreshing the ID token for profile "prod" failed: cannot reach https://issuer.example (ENOTFOUND: the host name does not resolve)',
    );
  });

  it("passes BrokerErrors through and never quotes a cause's body", () => {
    const own = new BrokerError('locked', 'x', 'y');
    expect(oidcFailure(own, where)).toBe(own);
    const leaky = new ResponseBodyError('server responded with an error', {
      cause: { error: 'invalid_grant', refresh_token: 'rt-secret-123' } as never,
      response: new Response(null, { status: 400 }),
    });
    const mapped = oidcFailure(leaky, where);
    expect(JSON.stringify(mapped.toBody())).not.toContain('rt-secret-123');
    expect(mapped.hint).toBe('run: kubecred login prod');
  });
});

describe('within', () => {
  it('settles with the promise, the abort reason, or the timeout error', async () => {
    const never = new Promise<string>(() => {});
    expect(await within(Promise.resolve('ok'), new AbortController().signal, 1000, () => new Error('late'))).toBe('ok');
    await expect(within(never, new AbortController().signal, 10, () => new Error('late'))).rejects.toThrow('late');
    const controller = new AbortController();
    const waiting = within(never, controller.signal, 10_000, () => new Error('late'));
    controller.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
  });
});
