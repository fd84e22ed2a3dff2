import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeystoneProfileConfig } from '../../src/shared/config/schema.js';
import { profileSchema } from '../../src/shared/config/schema.js';
import type { FormRequest, LoginUiPort } from '../../src/main/core/uiPorts.js';
import { KeystoneProvider } from '../../src/main/providers/keystone/keystoneProvider.js';
import type { SecretStore } from '../../src/main/core/secretStore.js';
import { createTestPki, type TestPki } from '../support/pki.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';
import { startKeystoneStandIn, type KeystoneStandIn } from '../support/keystoneStandIn.js';
import { FakeClock } from '../support/fakes/fakeClock.js';

const ALICE_PASSWORD = 'correct horse battery';
const START = Date.parse('2026-01-01T00:00:00Z');

function profile(fields: Record<string, unknown>): KeystoneProfileConfig {
  const parsed = profileSchema.parse({ name: 'os', provider: 'keystone', ...fields });
  if (parsed.provider !== 'keystone') throw new Error('not a keystone profile');
  return parsed;
}

class MemoryStore implements SecretStore {
  readonly name = 'test keychain';
  readonly values = new Map<string, string>();
  constructor(initial: Record<string, string> = {}) {
    for (const [field, value] of Object.entries(initial)) this.values.set(`os/${field}`, value);
  }
  async get({ profile, field }: { profile: string; field: string }) {
    return this.values.get(`${profile}/${field}`);
  }
  async set({ profile, field }: { profile: string; field: string }, value: string) {
    this.values.set(`${profile}/${field}`, value);
  }
  async delete() {
    return false;
  }
  async list() {
    return [];
  }
}

class FakeUi implements LoginUiPort {
  readonly forms: FormRequest[] = [];
  constructor(private readonly answer: (request: FormRequest) => Record<string, string> | null = () => null) {}
  showLogin(): void {}
  async askForm(request: FormRequest) {
    this.forms.push(request);
    return this.answer(request);
  }
  async openBrowser() {
    return false;
  }
}

const context = { profile: 'os', cluster: undefined, interactive: false };

describe('KeystoneProvider against the Keystone v3 stand-in', () => {
  let keystone: KeystoneStandIn;
  let debugKeystone: KeystoneStandIn;
  const clock = new FakeClock(START);

  beforeAll(async () => {
    keystone = await startKeystoneStandIn({ now: () => clock.now() });
    debugKeystone = await startKeystoneStandIn({ now: () => clock.now(), insecureDebug: true });
  });
  afterAll(async () => {
    await keystone.close();
    await debugKeystone.close();
  });

  function provider(
    fields: Record<string, unknown>,
    store = new MemoryStore({ password: ALICE_PASSWORD }),
    ui = new FakeUi(),
    extra: { fetch?: typeof fetch } = {},
  ) {
    return new KeystoneProvider(profile(fields), { store: async () => store, ui, clock, ...extra });
  }
  const lastBody = (standIn: KeystoneStandIn) => standIn.received.at(-1)?.body as { auth: Record<string, unknown> };

  it('logs in with a stored password, scoped to a project by name and domain', async () => {
    const credential = await provider({
      authUrl: keystone.authUrl,
      username: 'alice',
      userDomainName: 'Default',
      projectName: 'demo',
      projectDomainName: 'Default',
    }).getCredential(context);
    expect(credential.token).toBe(keystone.tokens.at(-1));
    expect(credential.identity).toBe(`${keystone.authUrl} u-alice`);
    expect(credential.expiresAt?.toISOString()).toBe('2026-01-01T01:00:00.000Z');
    expect(keystone.received.at(-1)?.query).toBe('?nocatalog');
    expect(lastBody(keystone)).toEqual({
      auth: {
        identity: {
          methods: ['password'],
          password: { user: { name: 'alice', domain: { name: 'Default' }, password: ALICE_PASSWORD } },
        },
        scope: { project: { name: 'demo', domain: { name: 'Default' } } },
      },
    });
  });

  it('scopes by project id, by domain, or not at all (Keystone then picks the default project)', async () => {
    await provider({ authUrl: keystone.authUrl, userId: 'u-alice', projectId: 'p-demo' }).getCredential(context);
    expect(lastBody(keystone).auth).toMatchObject({
      identity: { password: { user: { id: 'u-alice' } } },
      scope: { project: { id: 'p-demo' } },
    });
    await provider({
      authUrl: keystone.authUrl,
      username: 'alice',
      userDomainId: 'default',
      domainName: 'Default',
    }).getCredential(context);
    expect(lastBody(keystone).auth.scope).toEqual({ domain: { name: 'Default' } });
    const unscoped = await provider(
      { authUrl: keystone.authUrl, username: 'bob', userDomainName: 'engineering' },
      new MemoryStore({ password: 'b0b-pass' }),
    ).getCredential(context);
    expect(lastBody(keystone).auth.scope).toBeUndefined();
    expect(unscoped.identity).toBe(`${keystone.authUrl} u-bob`);
  });

  it('logs in with an application credential, by id or by name and user, without a scope', async () => {
    const store = new MemoryStore({ 'application-credential-secret': 'app-cred-s3cret' });
    const byId = await provider(
      { authUrl: keystone.authUrl, method: 'application-credential', applicationCredentialId: 'ac-kubectl' },
      store,
    ).getCredential(context);
    expect(byId.identity).toBe(`${keystone.authUrl} u-alice`);
    expect(lastBody(keystone)).toEqual({
      auth: {
        identity: {
          methods: ['application_credential'],
          application_credential: { id: 'ac-kubectl', secret: 'app-cred-s3cret' },
        },
      },
    });
    await provider(
      {
        authUrl: keystone.authUrl,
        method: 'application-credential',
        applicationCredentialName: 'kubectl',
        username: 'alice',
        userDomainName: 'Default',
        projectName: 'ignored',
      },
      store,
    ).getCredential(context);
    expect(lastBody(keystone)).toEqual({
      auth: {
        identity: {
          methods: ['application_credential'],
          application_credential: {
            name: 'kubectl',
            secret: 'app-cred-s3cret',
            user: { name: 'alice', domain: { name: 'Default' } },
          },
        },
      },
    });
  });

  it("reads client-keystone-auth's OS_* names from the profile environment", async () => {
    const credential = await provider(
      {
        environment: {
          OS_AUTH_URL: keystone.url,
          OS_USERNAME: 'bob',
          OS_DOMAIN_NAME: 'engineering',
          OS_PROJECT_NAME: 'ops',
          OS_REGION_NAME: 'RegionOne',
          OS_IDENTITY_API_VERSION: '3',
        },
      },
      new MemoryStore({ password: 'b0b-pass' }),
    ).getCredential(context);
    expect(credential.identity).toBe(`${keystone.authUrl} u-bob`);
    expect(lastBody(keystone).auth).toMatchObject({
      identity: { password: { user: { name: 'bob', domain: { name: 'engineering' } } } },
      scope: { project: { name: 'ops', domain: { name: 'engineering' } } },
    });
    const appCred = await provider(
      {
        environment: {
          OS_AUTH_URL: keystone.authUrl,
          OS_AUTH_TYPE: 'v3applicationcredential',
          OS_APPLICATION_CREDENTIAL_ID: 'ac-kubectl',
        },
      },
      new MemoryStore({ 'application-credential-secret': 'app-cred-s3cret' }),
    ).getCredential(context);
    expect(appCred.identity).toBe(`${keystone.authUrl} u-alice`);
  });

  it('refuses a password in the config and says where it belongs, without quoting it', async () => {
    const failure = provider({
      authUrl: keystone.authUrl,
      environment: { OS_USERNAME: 'alice', OS_USER_DOMAIN_NAME: 'Default', OS_PASSWORD: 'hunter2-in-config' },
    }).getCredential(context);
    await expect(failure).rejects.toMatchObject({
      code: 'config-invalid',
      message: expect.stringContaining('OS_PASSWORD'),
      hint: expect.stringContaining('kubecred secret set os password'),
    });
    await expect(failure).rejects.not.toThrow('hunter2-in-config');
  });

  it('answers a wrong stored password with one request and an error that says how to replace it', async () => {
    const before = keystone.requests;
    const failure = provider(
      {
        authUrl: keystone.authUrl,
        username: 'alice',
        userDomainName: 'Default',
        projectName: 'demo',
        projectDomainName: 'Default',
      },
      new MemoryStore({ password: 'wrong-password-123' }),
    ).getCredential(context);
    const error = (await failure.then(
      () => undefined,
      (e: unknown) => e,
    )) as { code: string; message: string; hint: string };
    expect(error).toMatchObject({ code: 'provider-failed' });
    expect(error.message).toContain(
      'refused the login of user "alice" in domain "Default" (profile "os"): the password stored in the test keychain is wrong',
    );
    expect(error.message).toContain('or the user has no role on project "demo"');
    expect(error.hint).toContain('kubecred secret set os password');
    expect(`${error.message} ${error.hint}`).not.toContain('wrong-password-123');
    expect(keystone.requests - before).toBe(1);
  });

  it('names the scope when Keystone says the project is the problem', async () => {
    const fields = { authUrl: debugKeystone.authUrl, username: 'alice', userDomainName: 'Default' };
    await expect(
      provider({ ...fields, projectName: 'nope', projectDomainName: 'Default' }).getCredential(context),
    ).rejects.toMatchObject({
      message: expect.stringMatching(
        /refused project "nope" in domain "Default" for user "alice".*HTTP 401.*Could not find project: nope/,
      ),
      hint: expect.stringContaining('has a role on it'),
    });
    await expect(provider({ ...fields, projectId: 'p-secret' }).getCredential(context)).rejects.toMatchObject({
      message: expect.stringContaining('has no access to project p-secret'),
    });
    await expect(provider({ ...fields, domainName: 'engineering' }).getCredential(context)).rejects.toMatchObject({
      message: expect.stringMatching(/refused domain "engineering".*no access to domain d-eng/),
    });
    // Production Keystone does not say why; both causes are named.
    await expect(
      provider({
        authUrl: keystone.authUrl,
        username: 'alice',
        userDomainName: 'Default',
        projectName: 'nope',
        projectDomainName: 'Default',
      }).getCredential(context),
    ).rejects.toMatchObject({
      message: expect.stringContaining('or the user has no role on project "nope" in domain "Default"'),
    });
    await expect(
      provider(
        { authUrl: keystone.authUrl, method: 'application-credential', applicationCredentialId: 'ac-gone' },
        new MemoryStore({ 'application-credential-secret': 'x' }),
      ).getCredential(context),
    ).rejects.toMatchObject({
      message: expect.stringContaining(
        'has no application credential ac-gone: Could not find Application Credential: ac-gone.',
      ),
    });
  });

  it('asks for a missing password in a form, and remembers it only when asked to and accepted', async () => {
    const store = new MemoryStore();
    const ui = new FakeUi(() => ({ password: ALICE_PASSWORD, remember: 'yes' }));
    const fields = { authUrl: keystone.authUrl, username: 'alice', userDomainName: 'Default' };
    await provider(fields, store, ui).getCredential(context);
    expect(ui.forms).toHaveLength(1);
    expect(ui.forms[0]?.fields).toEqual([
      { name: 'password', label: 'Password', secret: true },
      {
        name: 'remember',
        label: 'Remember the password in the test keychain',
        secret: false,
        value: 'no',
        yesNo: true,
      },
    ]);
    expect(store.values.get('os/password')).toBe(ALICE_PASSWORD);
    await provider(fields, store, ui).getCredential(context);
    expect(ui.forms).toHaveLength(1);

    const wrong = new MemoryStore();
    const wrongUi = new FakeUi(() => ({ password: 'typo', remember: 'yes' }));
    await expect(provider(fields, wrong, wrongUi).getCredential(context)).rejects.toMatchObject({
      message: expect.stringContaining('the password given is wrong'),
    });
    expect(wrong.values.size).toBe(0);

    await expect(
      provider(fields, new MemoryStore(), new FakeUi(() => null)).getCredential(context),
    ).rejects.toMatchObject({ code: 'locked' });
  });

  it('asks for everything the profile leaves open, and `login` asks for the password even when one is stored', async () => {
    const ui = new FakeUi(() => ({
      authUrl: keystone.url,
      username: 'bob',
      userDomainName: 'engineering',
      password: 'b0b-pass',
      remember: 'no',
    }));
    const store = new MemoryStore();
    const credential = await provider({}, store, ui).getCredential(context);
    expect(credential.identity).toBe(`${keystone.authUrl} u-bob`);
    expect(ui.forms[0]?.fields.map((f) => f.name)).toEqual([
      'authUrl',
      'username',
      'userDomainName',
      'password',
      'remember',
    ]);
    expect(store.values.size).toBe(0);

    const loginUi = new FakeUi(() => ({ password: ALICE_PASSWORD, remember: 'yes' }));
    const stale = new MemoryStore({ password: 'old-password' });
    const p = provider({ authUrl: keystone.authUrl, username: 'alice', userDomainName: 'Default' }, stale, loginUi);
    await p.login(context);
    expect(loginUi.forms).toHaveLength(1);
    expect(stale.values.get('os/password')).toBe(ALICE_PASSWORD);
  });

  it('takes the expiry from expires_at', async () => {
    const shortLived = await startKeystoneStandIn({ now: () => clock.now(), tokenLifetimeMs: 2 * 3_600_000 + 1_500 });
    try {
      const credential = await provider({ authUrl: shortLived.authUrl, userId: 'u-alice' }).getCredential(context);
      expect(credential.expiresAt?.toISOString()).toBe('2026-01-01T02:00:01.000Z');
    } finally {
      await shortLived.close();
    }
  });

  it('works through an injected fetch too', async () => {
    const credential = await provider({ authUrl: keystone.authUrl, userId: 'u-alice' }, undefined, undefined, {
      fetch: globalThis.fetch,
    }).getCredential(context);
    expect(credential.token).toBe(keystone.tokens.at(-1));
  });

  describe('failures before Keystone answers, and answers that are not Keystone', () => {
    let other: Server;
    let otherUrl = '';
    beforeAll(async () => {
      other = createServer((request, response) => {
        if (request.url?.startsWith('/html/')) {
          response.writeHead(200, { 'Content-Type': 'text/html', 'X-Subject-Token': 'x' });
          response.end('<html>login page</html>');
        } else {
          response.writeHead(404, { 'Content-Type': 'text/html' });
          response.end('<html>not found</html>');
        }
      });
      await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
      otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    });

    it('says so for a page that is not JSON, a URL with no Keystone, and a refused connection', async () => {
      await expect(
        provider({ authUrl: `${otherUrl}/html/v3`, userId: 'u-alice' }).getCredential(context),
      ).rejects.toMatchObject({ message: expect.stringContaining('something that is not JSON (text/html)') });
      await expect(
        provider({ authUrl: `${otherUrl}/identity`, userId: 'u-alice' }).getCredential(context),
      ).rejects.toMatchObject({
        message: `found no Keystone v3 API at ${otherUrl}/identity/v3 (POST auth/tokens gave HTTP 404)`,
      });
      const closed = await startKeystoneStandIn();
      await closed.close();
      await expect(
        provider({ authUrl: closed.authUrl, userId: 'u-alice' }).getCredential(context),
      ).rejects.toMatchObject({ message: expect.stringContaining('connection refused') });
    });
  });

  describe('over TLS with a private CA', () => {
    let home: TempHome;
    let pki: TestPki;
    let otherPki: TestPki;
    let tlsKeystone: KeystoneStandIn;
    beforeAll(async () => {
      home = await makeTempHome();
      [pki, otherPki] = await Promise.all([createTestPki(`${home.dir}/pki`), createTestPki(`${home.dir}/other`)]);
      tlsKeystone = await startKeystoneStandIn({
        now: () => clock.now(),
        tls: { certPem: pki.serverCertPem, keyPem: pki.serverKeyPem },
      });
    });
    afterAll(async () => {
      await tlsKeystone.close();
      await home.cleanup();
    });

    it('trusts the caFile bundle, and says what to do when the CA is unknown', async () => {
      const credential = await provider({
        authUrl: tlsKeystone.authUrl,
        userId: 'u-alice',
        caFile: pki.caCertPath,
      }).getCredential(context);
      expect(credential.token).toBe(tlsKeystone.tokens.at(-1));
      const viaEnv = await provider({
        authUrl: tlsKeystone.authUrl,
        userId: 'u-alice',
        environment: { OS_CACERT: pki.caCertPath },
      }).getCredential(context);
      expect(viaEnv.identity).toBe(`${tlsKeystone.authUrl} u-alice`);
      await expect(
        provider({ authUrl: tlsKeystone.authUrl, userId: 'u-alice' }).getCredential(context),
      ).rejects.toMatchObject({
        message: expect.stringMatching(
          /could not verify the TLS certificate of Keystone at .* \((SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\)/,
        ),
        hint: expect.stringContaining('set caFile'),
      });
      await expect(
        provider({ authUrl: tlsKeystone.authUrl, userId: 'u-alice', caFile: otherPki.caCertPath }).getCredential(
          context,
        ),
      ).rejects.toMatchObject({
        hint: expect.stringContaining(`the CA bundle ${otherPki.caCertPath} does not vouch for 127.0.0.1`),
      });
      await expect(
        provider({ authUrl: tlsKeystone.authUrl, userId: 'u-alice', caFile: `${home.dir}/missing.pem` }).getCredential(
          context,
        ),
      ).rejects.toMatchObject({ code: 'config-invalid', message: expect.stringContaining('ENOENT') });
    });
  });
});
