import { request as httpRequest } from 'node:http';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { buildRenderer, launchChromium, type TestChromium } from '../support/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Interaction, ProfileSummary } from '../../src/shared/api/status.js';
import { PromptQueue } from '../../src/main/ui/promptQueue.js';
import { ProfileInvalidError } from '../../src/main/config/configEditor.js';
import { startWebUi } from '../../src/main/webui/startWebUi.js';
import type { WebUi, WebUiPorts } from '../../src/main/webui/webUiPorts.js';
import type { Preferences } from '../../src/shared/api/webUiApi.js';
import { REPO_ROOT } from '../support/repo.js';

const SHOTS = path.join(REPO_ROOT, 'test-results', 'screenshots');
const RENDERER = path.join(REPO_ROOT, 'dist', 'renderer');
const inMinutes = (m: number) => new Date(Date.now() + m * 60_000 + 30_000).toISOString();

/** A broker stand-in: fixed profiles, logins that wait on the user like OIDC does. */
function fakePorts() {
  const calls: string[] = [];
  const profiles: ProfileSummary[] = [
    { name: 'prod', provider: 'oidc', state: 'ready', expiresAt: inMinutes(42), lastError: null },
    { name: 'staging', provider: 'keystone', state: 'idle', expiresAt: null, lastError: null },
    { name: 'lab', provider: 'oidc', state: 'idle', expiresAt: null, lastError: null },
  ];
  const interactions: Interaction[] = [];
  const listeners = new Set<() => void>();
  const changed = () => listeners.forEach((l) => l());
  const prefs: Preferences = {
    profiles: [{ name: 'prod', approval: 'never' }],
    tokens: [{ name: 'yubikey', pinGrace: '15m' }],
    startAtLogin: { enabled: false },
  };
  const ports: WebUiPorts = {
    profiles: async () => profiles.map((p) => ({ ...p })),
    interactions: () => [...interactions],
    onChange: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    login: async (name) => {
      calls.push(`login ${name}`);
      interactions.push(
        name === 'lab'
          ? { profile: name, kind: 'device', userCode: 'WDJB-MJHT', verificationUri: 'http://127.0.0.1:9/device' }
          : { profile: name, kind: 'browser', url: `http://127.0.0.1:9/authorize?client_id=kubecred&profile=${name}` },
      );
      changed();
    },
    cancelLogin: async (name) => {
      calls.push(`cancel-login ${name}`);
      interactions.splice(
        interactions.findIndex((i) => i.profile === name),
        1,
      );
      changed();
    },
    logout: async (name) => {
      calls.push(`logout ${name}`);
      const p = profiles.find((x) => x.name === name)!;
      p.state = 'idle';
      p.expiresAt = null;
    },
    prompts: new PromptQueue({ timeoutMs: 60_000 }),
    addProfile: async (input) => {
      calls.push(`add ${String(input.name)}`);
      profiles.push({
        name: String(input.name),
        provider: String(input.provider),
        state: 'idle',
        expiresAt: null,
        lastError: null,
      });
    },
    installProfile: async () => Promise.reject(new Error('this test installs nothing')),
    removeProfile: async (name) => {
      calls.push(`remove ${name}`);
      profiles.splice(
        profiles.findIndex((p) => p.name === name),
        1,
      );
    },
    profileConfig: async (name) => {
      calls.push(`config ${name}`);
      return name === 'lab'
        ? { name, provider: 'oidc', issuer: 'https://id.example', clientId: 'kubernetes', scopes: ['openid'] }
        : { name };
    },
    updateProfile: async (name, changes) => {
      calls.push(`update ${name} ${JSON.stringify(changes)}`);
      if (changes.issuer === 'not a url')
        throw new ProfileInvalidError('the profile is invalid: issuer: Invalid URL', 'issuer');
    },
    storeSecret: async (name, field, value) => {
      calls.push(`secret ${name}/${field} (${value.length} characters)`);
    },
    auditLog: async () => [],
    tokens: async () => [],
    updateToken: async (name, changes) => {
      calls.push(`token ${name} ${JSON.stringify(changes)}`);
      if (changes.pinGrace === 'soon')
        throw new ProfileInvalidError('the token is invalid: pinGrace: not a duration', 'pinGrace');
      prefs.tokens[0]!.pinGrace = changes.pinGrace ?? '15m';
    },
    preferences: async () => structuredClone(prefs),
    setStartAtLogin: async (enabled) => {
      calls.push(`start-at-login ${enabled}`);
      prefs.startAtLogin.enabled = enabled;
    },
  };
  return { ports, calls };
}

/** A raw request, so the test controls Host and Origin as an attacker's browser would. */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('headless web UI in chromium', () => {
  let ui: WebUi;
  let fake: ReturnType<typeof fakePorts>;
  let browser: TestChromium;
  let page: Page;
  const pageProblems: string[] = [];
  const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `webui-${name}.png`), fullPage: true });
  /** Opens a section from the nav, as a person does. */
  const open = (section: string) =>
    page
      .getByRole('navigation', { name: 'sections' })
      .getByRole('link', { name: new RegExp(`^${section}`) })
      .click();

  beforeAll(async () => {
    await buildRenderer();
    await mkdir(SHOTS, { recursive: true });
    fake = fakePorts();
    ui = await startWebUi({ ports: fake.ports, rendererDir: RENDERER });
    browser = await launchChromium({ width: 760, height: 620 });
    page = browser.page;
    // CSP violations and script errors show up here; the page must have none.
    page.on('console', (m) => m.type() === 'error' && pageProblems.push(m.text()));
    page.on('pageerror', (e) => pageProblems.push(e.message));
  });

  afterAll(async () => {
    await browser?.close();
    await ui?.close();
  });

  it('opens with the one-time link and shows the profiles with state and time left', async () => {
    const response = await page.goto(ui.url);
    expect(response?.headers()['content-security-policy']).toMatch(/^default-src 'none'; script-src 'self';/);
    expect(response?.headers()['cache-control']).toBe('no-store');
    await expect.poll(() => page.locator('[data-profile="prod"]').innerText()).toContain('signed in, 42 min');
    expect(await page.locator('[data-profile="staging"]').innerText()).toContain('signed out');
    expect(page.url()).not.toContain('token');
    // The session is a secret in this tab's storage, never a cookie (cookies reach every port of 127.0.0.1).
    expect(await browser.context.cookies()).toEqual([]);
    expect(await page.evaluate(() => sessionStorage.getItem('kubecred-session'))).toMatch(/^[\w-]{40,}$/);
    await shot('main');
  });

  it('Log out and Log in call the ports; pending logins show the link and the device code', async () => {
    await page.locator('[data-profile="prod"] button', { hasText: 'Log out' }).click();
    await expect.poll(() => fake.calls).toContain('logout prod');
    await expect.poll(() => page.locator('[data-profile="prod"]').innerText()).toContain('signed out');

    await page.locator('[data-profile="staging"] button', { hasText: 'Log in' }).click();
    await expect.poll(() => fake.calls).toContain('login staging');
    const card = page.locator('[data-login="staging"]');
    await card.waitFor();
    expect(await card.innerText()).toContain('Continue in your browser');
    // The site a person checks before typing a password, not a wall of query string.
    expect(await card.innerText()).toContain('Signing in to staging at http://127.0.0.1:9.');
    expect(await card.locator('a').innerText()).toBe('Open the sign-in page');
    expect(await card.locator('a').getAttribute('href')).toBe(
      'http://127.0.0.1:9/authorize?client_id=kubecred&profile=staging',
    );
    expect(await card.locator('button', { hasText: 'Copy' }).count()).toBe(1);

    await page.locator('[data-profile="lab"] button', { hasText: 'Log in' }).click();
    await page.locator('[data-login="lab"] .device-code').waitFor();
    expect(await page.locator('[data-login="lab"] .device-code').innerText()).toBe('WDJB-MJHT');
    expect(await page.locator('[data-login="lab"]').innerText()).toContain('http://127.0.0.1:9/device');
    await shot('logins');

    await page.locator('[data-login="lab"] button', { hasText: 'Cancel' }).click();
    await expect.poll(() => fake.calls).toContain('cancel-login lab');
    await expect.poll(() => page.locator('[data-login="lab"]').count()).toBe(0);
  });

  it("preferences: approval policy, PIN grace (with the broker's complaint) and start at login, each saying it was saved", async () => {
    await open('Settings');
    await page.locator('[data-approval="prod"] select').selectOption('always');
    await expect.poll(() => fake.calls).toContain('update prod {"approval":"always"}');
    await expect.poll(() => page.locator('[data-approval="prod"] [role="status"]').innerText()).toBe('✓ Saved');
    // One saving model: a PIN grace is written when the field is left (or on Enter), no Save button.
    const grace = page.locator('[data-pin-grace="yubikey"]');
    expect(await grace.locator('button').count()).toBe(0);
    await grace.locator('input').fill('soon');
    await grace.locator('input').press('Enter');
    await expect.poll(() => grace.locator('[role="status"]').innerText()).toContain('pinGrace');
    expect(await grace.locator('input').getAttribute('aria-invalid')).toBe('true');
    await grace.locator('input').fill('1h');
    await grace.locator('input').blur();
    await expect.poll(() => fake.calls).toContain('token yubikey {"pinGrace":"1h"}');
    await expect.poll(() => page.locator('[data-pin-grace="yubikey"] input').inputValue()).toBe('1h');
    await expect.poll(() => grace.locator('[role="status"]').innerText()).toBe('✓ Saved');
    const startAtLogin = page.locator('.start-at-login input');
    await startAtLogin.click();
    await expect.poll(() => fake.calls).toContain('start-at-login true');
    await expect.poll(() => startAtLogin.isChecked()).toBe(true);
    await expect
      .poll(() => page.locator('.pref-line [role="status"]').innerText())
      .toMatch(/^✓ Kubecred will start at login/);
    await shot('preferences');
    await open('Profiles');
  });

  it('a PIN typed in the page answers askPin; concurrent asks share the one prompt', async () => {
    const request = {
      token: 'yubikey',
      tokenLabel: 'YubiKey PIV #1234',
      flags: { countLow: true, finalTry: false, locked: false },
      caller: 'kubectl',
    };
    const asks = [fake.ports.prompts.askPin(request), fake.ports.prompts.askPin(request)];
    const form = page.locator('form[aria-label="PIN for yubikey"]');
    await form.waitFor();
    expect(await page.locator('form.prompt').count()).toBe(1);
    expect(await form.innerText()).toMatch(/few tries are left/);
    await form.locator('input[name="pin"]').fill('123456');
    await shot('pin');
    await form.locator('button[type="submit"]').click();
    await expect(Promise.all(asks)).resolves.toEqual(['123456', '123456']);
    await form.waitFor({ state: 'detached' });
  });

  it("a new store's passphrase is typed twice and answers askPassphrase", async () => {
    const asked = fake.ports.prompts.askPassphrase({ store: 'files', create: true });
    const form = page.locator('form[aria-label="passphrase for files"]');
    await form.waitFor();
    await form.locator('input[name="passphrase"]').fill('correct horse');
    await form.locator('input[name="again"]').fill('correct hors');
    expect(await form.locator('button[type="submit"]').isDisabled()).toBe(true);
    expect(await form.innerText()).toContain('The two passphrases differ');
    await shot('passphrase');
    await form.locator('input[name="again"]').fill('correct horse');
    // The button says what it does (new-user finding 6: it showed its own source code).
    await form.getByRole('button', { name: 'Create', exact: true }).click();
    await expect(asked).resolves.toBe('correct horse');
  });

  it('Cancel in the page sends a cancel: askPin resolves null', async () => {
    const asked = fake.ports.prompts.askPin({
      token: 'yubikey',
      tokenLabel: 'YubiKey PIV #1234',
      flags: { countLow: false, finalTry: false, locked: false },
    });
    const form = page.locator('form[aria-label="PIN for yubikey"]');
    await form.waitFor();
    await form.locator('button', { hasText: 'Cancel' }).click();
    await expect(asked).resolves.toBeNull();
    await form.waitFor({ state: 'detached' });
  });

  it('a login form (Keystone) is filled in the page and answers askForm; Cancel resolves null', async () => {
    const request = {
      profile: 'staging',
      title: 'Log in to Keystone at https://keystone.example:5000/v3 for profile "staging"',
      fields: [
        { name: 'username', label: 'User name', secret: false },
        { name: 'userDomainName', label: 'User domain', secret: false, value: 'Default' },
        { name: 'password', label: 'Password', secret: true },
      ],
    };
    const asked = fake.ports.prompts.askForm(request);
    const form = page.locator('form[aria-label="form for staging"]');
    await form.waitFor();
    expect(await form.innerText()).toContain('Log in to Keystone at https://keystone.example:5000/v3');
    expect(await form.locator('input[name="userDomainName"]').inputValue()).toBe('Default');
    expect(await form.locator('input[name="password"]').getAttribute('type')).toBe('password');
    await form.locator('input[name="username"]').fill('ada');
    expect(await form.locator('button[type="submit"]').isDisabled()).toBe(true);
    await form.locator('input[name="password"]').fill(' s3cret ');
    await shot('form');
    await form.locator('button[type="submit"]').click();
    await expect(asked).resolves.toEqual({ username: 'ada', userDomainName: 'Default', password: ' s3cret ' });
    await form.waitFor({ state: 'detached' });

    const cancelled = fake.ports.prompts.askForm(request);
    await form.waitFor();
    await form.locator('button', { hasText: 'Cancel' }).click();
    await expect(cancelled).resolves.toBeNull();
    await form.waitFor({ state: 'detached' });
  });

  it('approval: Allow once, Allow for N minutes, and Deny resolve askApproval', async () => {
    const request = {
      profile: 'prod',
      cluster: 'https://prod.example:6443',
      caller: { pid: 4242, name: 'kubectl get pods' },
    };
    const prompt = page.locator('section[aria-label="approval for prod"]');

    // Many callers at once, even from two programs: one prompt for the profile, naming both; one answer for all.
    const once = [fake.ports.prompts.askApproval(request), fake.ports.prompts.askApproval(request)];
    const k9s = fake.ports.prompts.askApproval({ ...request, caller: { pid: 4243, name: 'k9s' } });
    await prompt.waitFor();
    await expect.poll(() => prompt.innerText()).toContain('k9s (pid 4243)');
    expect(await prompt.count()).toBe(1);
    const text = await prompt.innerText();
    expect(text).toContain('kubectl get pods (pid 4242)');
    expect(text).toContain('https://prod.example:6443');
    expect(text).toContain('3 requests wait on this answer');
    await shot('approval');
    await prompt.locator('button', { hasText: 'Allow once' }).click();
    await expect(Promise.all([...once, k9s])).resolves.toEqual([{ allow: true }, { allow: true }, { allow: true }]);
    await prompt.waitFor({ state: 'detached' });

    const timed = fake.ports.prompts.askApproval(request);
    await prompt.waitFor();
    await prompt.locator('select').selectOption('60');
    await prompt.locator('button', { hasText: 'Allow for' }).click();
    await expect(timed).resolves.toEqual({ allow: true, forMinutes: 60 });
    await prompt.waitFor({ state: 'detached' });

    const denied = fake.ports.prompts.askApproval(request);
    await prompt.waitFor();
    await prompt.locator('button', { hasText: 'Deny' }).click();
    await expect(denied).resolves.toEqual({ allow: false });
  });

  it("Edit… shows config.yaml's values, puts the broker's complaint beside the field, and saves the changes", async () => {
    await page.locator('[data-profile="lab"]').getByRole('link', { name: 'lab' }).click();
    const item = page.locator('section[aria-label="profile lab"]');
    await item.locator('button', { hasText: 'Edit…' }).click();
    const form = item.locator('form[aria-label="edit lab"]');
    await expect.poll(() => form.locator('input[name="issuer"]').inputValue()).toBe('https://id.example');
    expect(await form.locator('input[name="clientId"]').inputValue()).toBe('kubernetes');
    // Finding 13: what the TLS error tells people to set (caFile), the scopes, and the client secret are all here.
    expect(await form.locator('textarea[name="scopes"]').inputValue()).toBe('openid');
    expect(await form.locator('input[name="caFile"]').inputValue()).toBe('');
    expect(await form.locator('input[name="client-secret"]').getAttribute('type')).toBe('password');
    await form.locator('input[name="issuer"]').fill('not a url');
    await form.locator('button[type="submit"]').click();
    await form.locator('[data-error-for="issuer"]').waitFor();
    expect(await form.locator('[data-error-for="issuer"]').innerText()).toContain('Invalid URL');
    await shot('edit-invalid');
    await form.locator('input[name="issuer"]').fill('https://login.example');
    await form.locator('input[name="clientId"]').fill('');
    await form.locator('input[name="client-secret"]').fill('s3cret-of-lab');
    await form.locator('button[type="submit"]').click();
    // Only what changed is sent: scopes, untouched, stay as config.yaml writes them.
    await expect.poll(() => fake.calls).toContain('update lab {"issuer":"https://login.example","clientId":null}');
    await expect.poll(() => fake.calls).toContain('secret lab/client-secret (13 characters)');
    await form.waitFor({ state: 'detached' });
    expect(fake.calls.filter((c) => c === 'config lab')).toHaveLength(1);
  });

  it('refuses a wrong or spent token, a missing session, a foreign Origin and a foreign Host', async () => {
    const base = new URL(ui.url);
    const origin = base.origin;
    const host = base.host;
    const token = new URLSearchParams(base.hash.slice(1)).get('token')!;
    const session = await page.evaluate(() => sessionStorage.getItem('kubecred-session'));
    const auth = `Bearer ${session}`;
    const json = { 'content-type': 'application/json' };

    const wrong = await raw(`${origin}/api/session`, {
      method: 'POST',
      headers: { ...json, host },
      body: JSON.stringify({ token: 'not-the-token' }),
    });
    expect(wrong.status).toBe(401);
    const spent = await raw(`${origin}/api/session`, {
      method: 'POST',
      headers: { ...json, host },
      body: JSON.stringify({ token }),
    });
    expect(spent.status).toBe(401);
    expect((await raw(`${origin}/api/state`, { headers: { host } })).status).toBe(401);

    const ok = await raw(`${origin}/api/state`, { headers: { host, authorization: auth } });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ profiles: expect.any(Array) });

    const foreignOrigin = await raw(`${origin}/api/profiles/prod/logout`, {
      method: 'POST',
      headers: { ...json, host, authorization: auth, origin: 'http://evil.example' },
      body: '{}',
    });
    expect(foreignOrigin.status).toBe(403);
    const rebound = await raw(`${origin}/api/state`, {
      headers: { host: `evil.example:${base.port}`, authorization: auth },
    });
    expect(rebound.status).toBe(421);
    const formPost = await raw(`${origin}/api/profiles/prod/logout`, {
      method: 'POST',
      headers: { host, authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
    });
    expect(formPost.status).toBe(415);
    expect(fake.calls.filter((c) => c === 'logout prod')).toHaveLength(1);

    // And from the page itself: fetch to another origin is blocked by the CSP.
    const blocked = await page.evaluate(() =>
      fetch('http://127.0.0.1:9/').then(
        () => 'sent',
        () => 'blocked',
      ),
    );
    expect(blocked).toBe('blocked');
    pageProblems.splice(0); // the blocked fetch above logs its CSP violation on purpose
  });

  it('the page logged no errors and no CSP violations', () => {
    expect(pageProblems).toEqual([]);
  });
});
