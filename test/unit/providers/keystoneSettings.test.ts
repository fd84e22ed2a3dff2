import { describe, expect, it } from 'vitest';
import { profileSchema, type KeystoneProfileConfig } from '../../../src/shared/config/schema.js';
import { authRequestBody } from '../../../src/main/providers/keystone/authRequest.js';
import { v3AuthUrl } from '../../../src/main/providers/keystone/authUrl.js';
import { keystoneMessage, refusal, type Attempt } from '../../../src/main/providers/keystone/keystoneErrors.js';
import { resolveKeystoneSettings } from '../../../src/main/providers/keystone/keystoneSettings.js';
import { applyAnswers, missingFields } from '../../../src/main/providers/keystone/loginForm.js';
import type { HttpAnswer } from '../../../src/main/providers/keystone/postJson.js';
import { readToken } from '../../../src/main/providers/keystone/tokenAnswer.js';

function profile(fields: Record<string, unknown>): KeystoneProfileConfig {
  const parsed = profileSchema.parse({ name: 'os', provider: 'keystone', ...fields });
  if (parsed.provider !== 'keystone') throw new Error('not keystone');
  return parsed;
}
const settingsOf = (fields: Record<string, unknown>) => resolveKeystoneSettings(profile(fields));

describe('Keystone auth URL', () => {
  it('takes the v3 endpoint as is and appends /v3 to one without it', () => {
    expect(v3AuthUrl('https://keystone.example.com:5000/v3', 'os')).toBe('https://keystone.example.com:5000/v3');
    expect(v3AuthUrl('https://keystone.example.com:5000/v3/', 'os')).toBe('https://keystone.example.com:5000/v3');
    expect(v3AuthUrl('https://keystone.example.com:5000', 'os')).toBe('https://keystone.example.com:5000/v3');
    expect(v3AuthUrl('https://cloud.example.com/identity/', 'os')).toBe('https://cloud.example.com/identity/v3');
  });

  it('refuses v2.0, other schemes, and credentials in the URL without echoing them', () => {
    expect(() => v3AuthUrl('https://k:5000/v2.0', 'os')).toThrow('is a Keystone v2.0 endpoint');
    expect(() => v3AuthUrl('ftp://k/v3', 'os')).toThrow('must be http or https');
    expect(() => v3AuthUrl('https://alice:pa55word@k/v3', 'os')).toThrow('carries a user name or password');
    try {
      v3AuthUrl('https://alice:pa55word@k/v3', 'os');
    } catch (error) {
      expect(JSON.stringify(error) + String((error as Error).message)).not.toContain('pa55word');
    }
  });
});

describe('Keystone settings', () => {
  it('prefers profile fields over the environment', () => {
    const s = settingsOf({
      username: 'alice',
      userDomainName: 'Default',
      projectName: 'demo',
      projectDomainName: 'Default',
      environment: { OS_USERNAME: 'bob', OS_PROJECT_NAME: 'ops', OS_AUTH_URL: 'https://k:5000' },
    });
    expect(s).toMatchObject({
      authUrl: 'https://k:5000/v3',
      username: 'alice',
      scope: { kind: 'project', name: 'demo', domain: { name: 'Default' } },
    });
  });

  it('reads OS_* as client-keystone-auth does: OS_DOMAIN_* defaults both domains, OS_PROJECT_* beats OS_TENANT_*', () => {
    const s = settingsOf({
      environment: { OS_USERNAME: 'bob', OS_DOMAIN_NAME: 'engineering', OS_TENANT_NAME: 'old', OS_PROJECT_NAME: 'ops' },
    });
    expect(s).toMatchObject({
      userDomain: { name: 'engineering' },
      scope: { kind: 'project', name: 'ops', domain: { name: 'engineering' } },
    });
    expect(settingsOf({ environment: { OS_USER_ID: 'u1', OS_TENANT_ID: 'p1' } }).scope).toEqual({
      kind: 'project',
      id: 'p1',
    });
    expect(settingsOf({ environment: { OS_USER_ID: 'u1', OS_DOMAIN_ID: 'd1' } }).scope).toEqual({
      kind: 'domain',
      domain: { id: 'd1' },
    });
    expect(settingsOf({ environment: { OS_USER_ID: 'u1' } }).scope).toEqual({ kind: 'default' });
    expect(settingsOf({ environment: { OS_USER_ID: 'u1', OS_CACERT: '/etc/ca.pem' } }).caFile).toBe('/etc/ca.pem');
  });

  it('selects application credentials from method, OS_AUTH_TYPE, or a credential without a method, and drops the scope', () => {
    expect(
      settingsOf({
        method: 'application-credential',
        applicationCredentialId: 'ac',
        projectName: 'demo',
        projectDomainName: 'Default',
      }),
    ).toMatchObject({ method: 'application-credential', scope: { kind: 'default' } });
    expect(
      settingsOf({ environment: { OS_AUTH_TYPE: 'v3applicationcredential', OS_APPLICATION_CREDENTIAL_ID: 'ac' } })
        .method,
    ).toBe('application-credential');
    expect(
      settingsOf({
        environment: {
          OS_APPLICATION_CREDENTIAL_NAME: 'kubectl',
          OS_USERNAME: 'alice',
          OS_USER_DOMAIN_NAME: 'Default',
        },
      }).method,
    ).toBe('application-credential');
    expect(() => settingsOf({ environment: { OS_AUTH_TYPE: 'v3oidcpassword' } })).toThrow(
      'OS_AUTH_TYPE v3oidcpassword is not supported',
    );
  });

  it('refuses secrets and unknown names in the environment, and ignores openrc noise', () => {
    for (const name of ['OS_PASSWORD', 'OS_APPLICATION_CREDENTIAL_SECRET', 'OS_TOKEN']) {
      let error: unknown;
      try {
        settingsOf({ environment: { [name]: 'top-secret-value' } });
      } catch (e) {
        error = e;
      }
      expect(error).toMatchObject({
        code: 'config-invalid',
        message: expect.stringContaining(name),
        hint: expect.stringContaining('kubecred secret set os'),
      });
      expect(JSON.stringify(error) + String((error as Error).message)).not.toContain('top-secret-value');
    }
    expect(() => settingsOf({ environment: { OS_PROJECTNAME: 'typo' } })).toThrow('environment names OS_PROJECTNAME');
    expect(() =>
      settingsOf({
        environment: {
          OS_REGION_NAME: 'RegionOne',
          OS_INTERFACE: 'public',
          OS_IDENTITY_API_VERSION: '3',
          OS_USER_ID: 'u',
        },
      }),
    ).not.toThrow();
  });

  it('wants a domain for every name', () => {
    expect(() => settingsOf({ username: 'alice' })).toThrow('user "alice" is named without its domain');
    expect(() =>
      settingsOf({ method: 'application-credential', applicationCredentialName: 'k', username: 'alice' }),
    ).toThrow('user "alice" is named without its domain');
    expect(() =>
      settingsOf({ method: 'application-credential', applicationCredentialId: 'ac', username: 'alice' }),
    ).not.toThrow();
    expect(() => settingsOf({ userId: 'u', projectName: 'demo' })).toThrow(
      'project "demo" is named without its domain',
    );
  });
});

describe('Keystone request bodies', () => {
  it('follows the v3 reference for each method and scope', () => {
    expect(authRequestBody(settingsOf({ userId: 'u1', projectId: 'p1' }), 'pw')).toEqual({
      auth: {
        identity: { methods: ['password'], password: { user: { id: 'u1', password: 'pw' } } },
        scope: { project: { id: 'p1' } },
      },
    });
    expect(
      authRequestBody(settingsOf({ username: 'a', userDomainId: 'default', domainId: 'd1' }), 'pw').auth.scope,
    ).toEqual({ domain: { id: 'd1' } });
    expect(authRequestBody(settingsOf({ userId: 'u1' }), 'pw').auth).not.toHaveProperty('scope');
    expect(
      authRequestBody(
        settingsOf({ method: 'application-credential', applicationCredentialName: 'k', userId: 'u1' }),
        's',
      ),
    ).toEqual({
      auth: {
        identity: {
          methods: ['application_credential'],
          application_credential: { name: 'k', secret: 's', user: { id: 'u1' } },
        },
      },
    });
  });
});

describe('the login form', () => {
  it('lists only what is missing and folds the answers in', () => {
    const settings = settingsOf({});
    const fields = missingFields(settings, true, 'keychain');
    expect(fields.map((f) => [f.name, f.secret])).toEqual([
      ['authUrl', false],
      ['username', false],
      ['userDomainName', false],
      ['password', true],
      ['remember', false],
    ]);
    const result = applyAnswers('os', settings, fields, {
      authUrl: ' https://k:5000 ',
      username: 'alice',
      userDomainName: 'Default',
      password: ' spaced pw ',
      remember: 'Yes',
    });
    expect(result).toMatchObject({
      secret: ' spaced pw ',
      remember: true,
      settings: { authUrl: 'https://k:5000/v3', username: 'alice', userDomain: { name: 'Default' } },
    });
    expect(() =>
      applyAnswers('os', settings, fields, {
        authUrl: 'https://k',
        username: '',
        userDomainName: 'Default',
        password: 'x',
      }),
    ).toThrow('came back without "User name"');
    expect(
      missingFields(settingsOf({ authUrl: 'https://k/v3', method: 'application-credential' }), false, 'keychain').map(
        (f) => f.name,
      ),
    ).toEqual(['applicationCredentialId']);
  });
});

function answer(status: number, body: string, headers: Record<string, string> = {}): HttpAnswer {
  return { status, body, header: (name) => headers[name.toLowerCase()] };
}

const attempt = (fields: Record<string, unknown>, secret = 'pw-123'): Attempt => ({
  profile: 'os',
  authUrl: 'https://k/v3',
  settings: settingsOf(fields),
  secretSource: 'store',
  storeName: 'keychain',
  secret,
});

describe('Keystone answers', () => {
  it("counts the lifetime from when the request left when this clock is behind Keystone's", () => {
    const body = JSON.stringify({
      token: {
        issued_at: '2026-01-01T10:00:00.000000Z',
        expires_at: '2026-01-01T11:00:00.000000Z',
        user: { id: 'u1' },
      },
    });
    const ok = answer(201, body, { 'x-subject-token': 'tok' });
    const a = attempt({ userId: 'u1' });
    // This machine is 10 minutes behind: the token dies at 10:50 on its clock.
    expect(readToken(ok, a, Date.parse('2026-01-01T09:50:00Z')).expiresAt.toISOString()).toBe(
      '2026-01-01T10:50:00.000Z',
    );
    // Ahead: expires_at is the earlier, and wins.
    expect(readToken(ok, a, Date.parse('2026-01-01T10:05:00Z')).expiresAt.toISOString()).toBe(
      '2026-01-01T11:00:00.000Z',
    );
    expect(() => readToken(answer(201, body), a, 0)).toThrow('without an X-Subject-Token header');
    expect(() => readToken(answer(201, '{"token":{}}', { 'x-subject-token': 't' }), a, 0)).toThrow(
      'is not a Keystone v3 token (token.expires_at',
    );
  });

  it("quotes Keystone's message on one line, never with the secret in it", () => {
    expect(
      keystoneMessage(
        JSON.stringify({
          error: { code: 400, message: "Invalid input for 'password': 'pw-123'\nis too long", title: 'Bad Request' },
        }),
        'pw-123',
      ),
    ).toBe("Invalid input for 'password': '***' is too long");
    expect(keystoneMessage('<html>', 'x')).toBeUndefined();
  });

  it('explains multi-factor, server failures, redirects and malformed requests', () => {
    const a = attempt({ userId: 'u1', projectId: 'p1' });
    expect(
      refusal(
        answer(
          401,
          '{"error":{"code":401,"message":"Additional authentications steps required.","title":"Unauthorized"}}',
          { 'openstack-auth-receipt': 'r' },
        ),
        a,
      ).message,
    ).toContain('multi-factor');
    expect(
      refusal(answer(503, '{"error":{"code":503,"message":"Service Unavailable","title":"Service Unavailable"}}'), a)
        .message,
    ).toBe('Keystone at https://k/v3 failed with HTTP 503: Service Unavailable');
    expect(refusal(answer(301, '', { location: 'https://k2/v3/auth/tokens' }), a).message).toContain(
      'redirected the token request (HTTP 301) to https://k2/v3/auth/tokens',
    );
    expect(
      refusal(
        answer(400, '{"error":{"code":400,"message":"Expecting to find domain in user.","title":"Bad Request"}}'),
        a,
      ).message,
    ).toContain('malformed: Expecting to find domain in user.');
    expect(
      refusal(
        answer(
          403,
          '{"error":{"code":403,"message":"You are not authorized to perform the requested action.","title":"Forbidden"}}',
        ),
        a,
      ).message,
    ).toContain('refused project id p1 for user id u1 (HTTP 403)');
  });
});
