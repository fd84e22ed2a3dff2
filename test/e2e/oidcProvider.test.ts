import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { profileSchema, type OidcProfileConfig } from '../../src/shared/config/schema.js';
import type { Credential } from '../../src/shared/credential.js';
import { BrokerError } from '../../src/main/core/brokerError.js';
import { systemClock } from '../../src/main/core/clock.js';
import { silentLogger, type Logger } from '../../src/main/core/logger.js';
import type { LoginPrompt, LoginUiPort } from '../../src/main/core/uiPorts.js';
import { OidcProvider } from '../../src/main/providers/oidc/oidcProvider.js';
import type { SecretRef } from '../../src/main/core/secretStore.js';
import { startBrowser, type BrowserDriver, type SignInOptions } from '../support/browserDriver.js';
import { DEVICE_GRANT, startTestIssuer, type TestIssuer } from '../support/oidcIssuer.js';
import { REPO_ROOT } from '../support/repo.js';
import { MemorySecretStore } from '../support/fakes/memorySecretStore.js';

const PROFILE = 'oidc-test';
const SCREENSHOTS = join(REPO_ROOT, 'test-results', 'screenshots');
const REFRESH: SecretRef = { profile: PROFILE, field: 'refresh-token' };

/** What the "user" does with a browser URL: sign in, refuse, have no browser, or ignore the tab. */
type BrowserBehaviour =
  { kind: 'sign-in' | 'deny'; options?: SignInOptions } | { kind: 'no-browser' } | { kind: 'ignore' };

interface TestUi extends LoginUiPort {
  readonly opened: string[];
  readonly prompts: LoginPrompt[];
  /** The browser journeys started, each resolving to the text of its last page. */
  readonly journeys: Promise<string>[];
}

function claimsOf(credential: Credential): Record<string, unknown> {
  return JSON.parse(Buffer.from(credential.token?.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;
}

describe('OIDC provider against oidc-provider and chromium', () => {
  let dir: string;
  let issuer: TestIssuer;
  let browser: BrowserDriver;
  const logged: string[] = [];
  const logger: Logger = {
    info: (message, fields) => logged.push(`${message} ${JSON.stringify(fields ?? {})}`),
    warn: (message, fields) => logged.push(`${message} ${JSON.stringify(fields ?? {})}`),
    error: (message, fields) => logged.push(`${message} ${JSON.stringify(fields ?? {})}`),
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kc-oidc-'));
    [issuer, browser] = await Promise.all([startTestIssuer({ dir: join(dir, 'pki') }), startBrowser()]);
    console.info(`chromium started in ${browser.startupMs} ms`);
  });

  afterAll(async () => {
    await browser?.close();
    await issuer?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    issuer.resetCounts();
    await browser.forgetSessions();
  });

  function profile(overrides: Partial<OidcProfileConfig> = {}): OidcProfileConfig {
    const parsed = profileSchema.parse({
      name: PROFILE,
      provider: 'oidc',
      issuer: issuer.issuer,
      clientId: issuer.clientId,
      caFile: issuer.caFile,
      scopes: ['openid', 'offline_access', 'email'],
      ...overrides,
    });
    if (parsed.provider !== 'oidc') throw new Error('not an oidc profile');
    return parsed;
  }

  function testUi(behaviour: BrowserBehaviour, device: SignInOptions | 'ignore' = {}): TestUi {
    const opened: string[] = [];
    const prompts: LoginPrompt[] = [];
    const journeys: Promise<string>[] = [];
    const track = (journey: Promise<string>) => {
      journey.catch(() => {});
      journeys.push(journey);
    };
    return {
      opened,
      prompts,
      journeys,
      showLogin(prompt) {
        prompts.push(prompt);
        if (prompt.kind === 'device' && device !== 'ignore')
          track(
            browser.deviceSignIn(prompt.verificationUriComplete ?? prompt.verificationUri, {
              ...device,
              userCode: prompt.userCode,
            }),
          );
      },
      askForm: async () => null,
      openBrowser: async (url) => {
        if (behaviour.kind === 'no-browser') return false;
        opened.push(url);
        if (behaviour.kind === 'sign-in' || behaviour.kind === 'deny')
          track(browser.signIn(url, { ...behaviour.options, deny: behaviour.kind === 'deny' }));
        return true;
      },
    };
  }

  function provider(
    ui: LoginUiPort,
    store: MemorySecretStore,
    overrides: Partial<OidcProfileConfig> = {},
    loginTimeoutMs?: number,
  ) {
    return new OidcProvider(profile(overrides), {
      store: async () => store,
      ui,
      clock: systemClock,
      logger,
      ...(loginTimeoutMs ? { loginTimeoutMs } : {}),
    });
  }

  const context = (interactive: boolean, server = 'https://cluster.example') => ({
    profile: PROFILE,
    cluster: { server },
    interactive,
  });

  it('logs in with the code flow in chromium, then renews by refresh without a browser', async () => {
    const store = new MemorySecretStore();
    const ui = testUi({
      kind: 'sign-in',
      options: { login: 'alice', screenshots: { dir: SCREENSHOTS, prefix: 'oidc-browser' } },
    });
    const oidc = provider(ui, store);
    const before = Date.now();

    const first = await oidc.getCredential(context(true));
    expect(await ui.journeys[0]).toContain(`You are signed in to ${PROFILE}`);
    const claims = claimsOf(first);
    expect(claims).toMatchObject({
      iss: issuer.issuer,
      sub: 'alice',
      aud: issuer.clientId,
      email: 'alice@example.test',
    });
    expect(first.identity).toBe(`${issuer.issuer} alice`);
    expect(first.expiresAt?.getTime()).toBe((claims.exp as number) * 1000 - 30_000);
    expect(first.expiresAt!.getTime()).toBeGreaterThan(before);
    const url = new URL(ui.opened[0] ?? '');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(url.searchParams.get('prompt')).toBe('consent');
    expect(ui.prompts).toEqual([{ profile: PROFILE, kind: 'browser', url: ui.opened[0] }]);
    const firstRefresh = await store.get(REFRESH);
    expect(firstRefresh).toBeTruthy();
    expect(issuer.counts.authorizations).toBe(1);

    const second = await oidc.getCredential(context(false));
    expect(ui.opened).toHaveLength(1);
    expect(issuer.counts.grants.refresh_token).toBe(1);
    expect(second.identity).toBe(first.identity);
    // The issuer rotates public clients' refresh tokens: the new one is kept, the old one is spent.
    const rotated = await store.get(REFRESH);
    expect(rotated).toBeTruthy();
    expect(rotated).not.toBe(firstRefresh);
    expect(await issuer.isRefreshTokenActive(firstRefresh!)).toBe(false);
    expect(await issuer.isRefreshTokenActive(rotated!)).toBe(true);
    // Nothing secret reached the log.
    for (const secret of [first.token!, second.token!, firstRefresh!, rotated!])
      expect(logged.join('\n')).not.toContain(secret);
  });

  it('makes one login for 20 callers at once, and one refresh after that', async () => {
    const store = new MemorySecretStore();
    const ui = testUi({ kind: 'sign-in' });
    const oidc = provider(ui, store);

    const logins = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        oidc.getCredential(context(i % 2 === 0, `https://cluster-${i % 3}.example`)),
      ),
    );
    expect(ui.opened).toHaveLength(1);
    expect(issuer.counts.authorizations).toBe(1);
    expect(new Set(logins.map((c) => c.token)).size).toBe(1);

    // A rotating issuer revokes the grant when one refresh token is spent twice: one refresh, not twenty.
    const refreshes = await Promise.all(Array.from({ length: 20 }, () => oidc.getCredential(context(false))));
    expect(issuer.counts.grants.refresh_token).toBe(1);
    expect(new Set(refreshes.map((c) => c.token)).size).toBe(1);
    expect(await issuer.isRefreshTokenActive((await store.get(REFRESH))!)).toBe(true);
  });

  it('after the issuer revokes the refresh token: the clear error without a browser, a new login with one', async () => {
    const store = new MemorySecretStore();
    const first = await provider(testUi({ kind: 'sign-in' }), store).getCredential(context(true));
    expect(await issuer.revokeAllRefreshTokens()).toBeGreaterThan(0);

    const headless = provider(testUi({ kind: 'no-browser' }), store);
    const error = await headless.getCredential(context(false)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrokerError);
    expect(error).toMatchObject({ code: 'locked', hint: `run: kubecred login ${PROFILE}` });
    expect((error as BrokerError).message).toContain('rejected the refresh token');
    expect(await store.get(REFRESH)).toBeUndefined();
    // New user review 4, N24: kubectl runs the plugin again at once; the second line said "has
    // no refresh token", as if another thing were wrong. It says the same reason again.
    const retried = await headless.getCredential(context(false)).catch((e: unknown) => e);
    expect((retried as BrokerError).message).toContain('rejected the refresh token');
    expect((retried as BrokerError).message).not.toContain('has no refresh token');

    const ui = testUi({ kind: 'sign-in', options: { login: 'bob' } });
    await browser.forgetSessions();
    await issuer.revokeAllRefreshTokens();
    await store.set(REFRESH, 'a-refresh-token-the-issuer-never-issued');
    const again = await provider(ui, store).getCredential(context(false));
    expect(ui.opened).toHaveLength(1);
    expect(again.identity).toBe(`${issuer.issuer} bob`);
    expect(again.identity).not.toBe(first.identity);
    expect(await store.get(REFRESH)).not.toBe('a-refresh-token-the-issuer-never-issued');
  });

  // Issue 26, item 5: issuers say "this refresh token is dead" in more than one way. Dex answers
  // invalid_request; an issuer restarted with no memory does not know the token at all.
  for (const [how, refuse] of [
    ['answers invalid_request (as Dex does)', () => issuer.refuseRefreshTokensWith('invalid_request')],
    ['was restarted and no longer knows the token', () => issuer.restartWithoutMemory()],
  ] as const)
    it(`when the issuer ${how}: the refresh token is dropped, the error names kubecred login, and a login follows where one can`, async () => {
      const store = new MemorySecretStore();
      await provider(testUi({ kind: 'sign-in' }), store).getCredential(context(true));
      expect(await store.get(REFRESH)).toBeDefined();
      await issuer.revokeAllRefreshTokens();
      refuse();
      try {
        const headless = provider(testUi({ kind: 'no-browser' }), store);
        const error = await headless.getCredential(context(false)).catch((e: unknown) => e);
        expect(error).toMatchObject({ code: 'locked', hint: `run: kubecred login ${PROFILE}` });
        expect((error as BrokerError).message).toContain('rejected the refresh token');
        expect(await store.get(REFRESH)).toBeUndefined();

        await store.set(REFRESH, 'a-refresh-token-the-issuer-never-issued');
        await browser.forgetSessions();
        const ui = testUi({ kind: 'sign-in', options: { login: 'carol' } });
        const again = await provider(ui, store).getCredential(context(false));
        expect(ui.opened).toHaveLength(1);
        expect(again.identity).toBe(`${issuer.issuer} carol`);
        expect(await store.get(REFRESH)).not.toBe('a-refresh-token-the-issuer-never-issued');
      } finally {
        issuer.refuseRefreshTokensWith(undefined);
      }
    });

  it('uses the device grant (flow: device), then refreshes', async () => {
    const store = new MemorySecretStore();
    const ui = testUi(
      { kind: 'no-browser' },
      { login: 'carol', screenshots: { dir: SCREENSHOTS, prefix: 'oidc-device' } },
    );
    const oidc = provider(ui, store, { flow: 'device' });

    const credential = await oidc.getCredential(context(true));
    expect(await ui.journeys[0]).toContain('Sign-in Success');
    expect(ui.prompts).toHaveLength(1);
    expect(ui.prompts[0]).toMatchObject({
      profile: PROFILE,
      kind: 'device',
      userCode: expect.any(String),
      verificationUri: `${issuer.issuer}/device`,
    });
    expect(credential.identity).toBe(`${issuer.issuer} carol`);
    expect(issuer.counts.grants[DEVICE_GRANT]).toBe(1);
    expect(await store.get(REFRESH)).toBeTruthy();

    const refreshed = await oidc.getCredential(context(false));
    expect(refreshed.identity).toBe(credential.identity);
    expect(issuer.counts.grants.refresh_token).toBe(1);
    expect(ui.prompts).toHaveLength(1);
  });

  it('flow auto falls back to the device grant when no browser opens, and fails clearly when nobody can prompt', async () => {
    const ui = testUi({ kind: 'no-browser' }, { login: 'dave' });
    const credential = await provider(ui, new MemorySecretStore()).getCredential(context(true));
    expect(ui.prompts.map((p) => p.kind)).toEqual(['device']);
    expect(credential.identity).toBe(`${issuer.issuer} dave`);
    expect(issuer.counts.authorizations).toBe(0);

    const headless = provider(testUi({ kind: 'no-browser' }), new MemorySecretStore());
    await expect(headless.getCredential(context(false))).rejects.toMatchObject({
      code: 'locked',
      message: expect.stringContaining('has no refresh token'),
      hint: `run: kubecred login ${PROFILE}`,
    });
  });

  it('login() is interactive even with a refresh token; logout() revokes and forgets it', async () => {
    const store = new MemorySecretStore();
    const ui = testUi({ kind: 'sign-in', options: { login: 'erin' } });
    const oidc = provider(ui, store);
    await oidc.getCredential(context(true));
    const refresh = await store.get(REFRESH);

    const relogin = await oidc.login(context(false));
    expect(ui.opened).toHaveLength(2);
    expect(relogin.identity).toBe(`${issuer.issuer} erin`);
    const current = await store.get(REFRESH);
    expect(current).not.toBe(refresh);

    await oidc.logout(PROFILE);
    expect(await store.get(REFRESH)).toBeUndefined();
    expect(issuer.counts.revocations).toBe(1);
    expect(await issuer.isRefreshTokenActive(current!)).toBe(false);
    await oidc.logout(PROFILE);
    expect(issuer.counts.revocations).toBe(1);
  });

  it('reports a refusal at the issuer and a browser that never comes back', async () => {
    const denied = testUi({ kind: 'deny', options: { screenshots: { dir: SCREENSHOTS, prefix: 'oidc-denied' } } });
    const refusal = await provider(denied, new MemorySecretStore())
      .getCredential(context(true))
      .catch((e: unknown) => e);
    expect(refusal).toMatchObject({
      code: 'provider-failed',
      message: expect.stringContaining('was refused at the issuer (access_denied'),
    });
    expect(await denied.journeys[0]).toContain(`Signing in to ${PROFILE} did not work`);

    const started = Date.now();
    const ignored = testUi({ kind: 'ignore' });
    await expect(provider(ignored, new MemorySecretStore(), {}, 1500).login(context(true))).rejects.toMatchObject({
      code: 'provider-failed',
      message: `the browser sign-in for profile "${PROFILE}" was not finished within 2 s`,
      hint: `run: kubecred login ${PROFILE} to try again`,
    });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('needs caFile to trust a private issuer, and says so', async () => {
    const oidc = new OidcProvider(profile({ caFile: undefined }), {
      store: async () => new MemorySecretStore(),
      ui: testUi({ kind: 'ignore' }),
      clock: systemClock,
      logger: silentLogger,
    });
    await expect(oidc.getCredential(context(true))).rejects.toMatchObject({
      code: 'provider-failed',
      message: expect.stringContaining('is not trusted'),
      hint: expect.stringContaining('caFile'),
    });
  });
});
