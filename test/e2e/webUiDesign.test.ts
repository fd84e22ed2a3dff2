import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PromptQueue } from '../../src/main/ui/promptQueue.js';
import { startWebUi } from '../../src/main/webui/startWebUi.js';
import type { WebUi, WebUiPorts } from '../../src/main/webui/webUiPorts.js';
import type { AuditEntry, ImportPreview, Preferences, TokenView } from '../../src/shared/api/webUiApi.js';
import type { ProfileSummary } from '../../src/shared/api/status.js';
import { seriousAxeViolations } from '../support/axe.js';
import { buildRenderer, launchChromium, type TestChromium } from '../support/chromium.js';
import { previewOnlyImport } from '../support/importPreviewService.js';
import { REPO_ROOT } from '../support/repo.js';

// Issue 16: the main window as a product. The real web UI server and the built page in
// Chromium at 800x600; the broker behind it is a stand-in whose state each test sets.
const SHOTS = path.join(REPO_ROOT, 'test-results', 'screenshots');
const RENDERER = path.join(REPO_ROOT, 'dist', 'renderer');
const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();
const ago = (s: number) => new Date(Date.now() - s * 1000).toISOString();

const NOTHING_TO_MOVE: ImportPreview = {
  files: ['/home/ada/.kube/config'],
  moves: [],
  left: [
    {
      file: '/home/ada/.kube/config',
      user: 'old-admin',
      reason:
        'it uses basic auth (username and password), which exec plugins cannot supply and Kubernetes removed in 1.19; it was left as it is',
    },
  ],
  diff: '',
  fingerprint: 'nothing',
};

function designPorts() {
  const profiles: ProfileSummary[] = [];
  const audit: AuditEntry[] = [];
  const tokens: TokenView[] = [];
  const configs: Record<string, Record<string, unknown>> = {};
  const listeners = new Set<() => void>();
  const calls: string[] = [];
  const prefs: Preferences = { profiles: [], tokens: [], startAtLogin: { enabled: false } };
  const kubeconfigImport = previewOnlyImport(NOTHING_TO_MOVE);
  const ports: WebUiPorts = {
    profiles: async () => profiles.map((p) => ({ ...p })),
    registries: async () => [],
    interactions: () => [],
    onChange: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    login: async (name) => void calls.push(`login ${name}`),
    cancelLogin: async () => undefined,
    logout: async (name) => void calls.push(`logout ${name}`),
    prompts: new PromptQueue({ timeoutMs: 60_000 }),
    addProfile: async () => undefined,
    installProfile: async (name, context) => (
      calls.push(`install ${name} ${context}`),
      { context, user: context, file: '~/.kube/config' }
    ),
    removeProfile: async () => undefined,
    profileConfig: async (name) => ({ name, ...configs[name] }),
    updateProfile: async () => undefined,
    storeSecret: async () => undefined,
    auditLog: async () => audit,
    tokens: async () => tokens,
    updateToken: async () => undefined,
    preferences: async () => ({
      ...structuredClone(prefs),
      profiles: profiles.map((p) => ({ name: p.name, approval: 'never' as const })),
    }),
    configError: async () => null,
    setStartAtLogin: async () => undefined,
    kubeconfigImport,
  };
  /** The broker's state changed: the page hears of it as it would from a real broker. */
  const changed = () => listeners.forEach((l) => l());
  return { ports, profiles, audit, tokens, configs, calls, changed };
}

describe('the main window as a product (issue 16), at 800x600', () => {
  let ui: WebUi;
  let fake: ReturnType<typeof designPorts>;
  let browser: TestChromium;
  let page: Page;
  const pageProblems: string[] = [];
  const shot = async (name: string) => {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: path.join(SHOTS, `design-${name}-${colorScheme}.png`) });
    }
    await page.emulateMedia({ colorScheme: 'light' });
  };
  /** Zero serious or critical axe violations, in light and in dark. */
  const axeClean = async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      expect(await seriousAxeViolations(page), colorScheme).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  };
  /** Nothing sticks out sideways at 800 px: neither the page nor any element in it scrolls horizontally. */
  const noHorizontalScroll = async () => {
    const wide = await page.evaluate(() => {
      const root = document.documentElement;
      const out: string[] = [];
      if (root.scrollWidth > root.clientWidth) out.push(`page ${root.scrollWidth} > ${root.clientWidth}`);
      for (const el of Array.from(document.querySelectorAll('body *'))) {
        const r = el.getBoundingClientRect();
        if (r.width > 0 && r.right > root.clientWidth + 1)
          out.push(`${el.tagName.toLowerCase()}.${el.className} right ${Math.round(r.right)}`);
      }
      return out;
    });
    expect(wide).toEqual([]);
  };
  const nav = () => page.getByRole('navigation', { name: 'sections' });

  beforeAll(async () => {
    await buildRenderer();
    await mkdir(SHOTS, { recursive: true });
    fake = designPorts();
    ui = await startWebUi({ ports: fake.ports, rendererDir: RENDERER });
    browser = await launchChromium({ width: 800, height: 600 });
    page = browser.page;
    page.on('console', (m) => m.type() === 'error' && pageProblems.push(m.text()));
    page.on('pageerror', (e) => pageProblems.push(e.message));
    await page.goto(ui.url);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await ui?.close();
  });

  it('first run: two lines on what Kubecred does, "Import my kubeconfig" and "Add a profile"; an import with nothing to move says why', async () => {
    const welcome = page.locator('section[aria-label="first run"]');
    await welcome.waitFor({ timeout: 10_000 });
    expect(await welcome.locator('p').allInnerTexts()).toEqual([
      'Kubecred keeps tokens and keys in the OS keychain or on a hardware token, never in a file.',
      'kubectl, k9s, Lens and your IDE ask it through one small exec plugin, and it answers from memory.',
    ]);
    expect(await welcome.getByRole('link', { name: 'Import my kubeconfig' }).isVisible()).toBe(true);
    expect(await welcome.getByRole('link', { name: 'Add a profile' }).isVisible()).toBe(true);
    await noHorizontalScroll();
    await axeClean();
    await shot('first-run');

    await welcome.getByRole('link', { name: 'Import my kubeconfig' }).click();
    const wizard = page.locator('section[aria-label="kubeconfig import"]');
    await wizard.getByRole('button', { name: 'Look at my kubeconfig' }).click();
    await wizard.locator('[data-left="old-admin"]').waitFor({ timeout: 10_000 });
    expect(await wizard.innerText()).toMatch(/Nothing to move[\s\S]*old-admin[\s\S]*basic auth/);
    expect(await wizard.getByRole('button', { name: /^Import/ }).count()).toBe(0);
    await axeClean();
    await shot('import-nothing');
    await page.getByRole('link', { name: '← All profiles' }).click();
    await welcome.waitFor();
  });

  it('the sections are reached by keyboard alone, with a visible focus ring, and a reload keeps the section', async () => {
    fake.configs.prod = {
      provider: 'oidc',
      issuer: 'https://id.example.com',
      clientId: 'kubernetes',
      secretStore: 'keychain',
    };
    fake.profiles.push(
      {
        name: 'prod',
        provider: 'oidc',
        state: 'ready',
        expiresAt: inSeconds(42 * 60 + 30),
        lastError: null,
        account: 'ada@example.com',
        contexts: ['prod-eu', 'prod-us'],
        servers: ['https://prod-eu.example:6443', 'https://prod-us.example:6443'],
      },
      { name: 'ci', provider: 'static', state: 'idle', expiresAt: null, lastError: null },
    );
    fake.changed();
    await page.locator('[data-profile="prod"]').waitFor({ timeout: 10_000 });

    // Tab from the top of the page until the Activity link has the focus, then Enter.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    let reached = false;
    for (let i = 0; i < 20 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate(() => document.activeElement?.getAttribute('data-nav') === 'activity');
    }
    expect(reached).toBe(true);
    const ring = await page.evaluate(() => {
      const style = getComputedStyle(document.activeElement!);
      return { style: style.outlineStyle, width: parseFloat(style.outlineWidth) };
    });
    expect(ring.style).not.toBe('none');
    expect(ring.width).toBeGreaterThanOrEqual(2);
    await shot('keyboard-focus');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Activity', level: 1 }).waitFor();
    expect(new URL(page.url()).hash).toBe('#/activity');
    expect(
      await nav()
        .getByRole('link', { name: /^Activity/ })
        .getAttribute('aria-current'),
    ).toBe('page');

    await page.reload();
    await page.getByRole('heading', { name: 'Activity', level: 1 }).waitFor({ timeout: 10_000 });

    // Back to the profiles and into one, by keyboard.
    await nav()
      .getByRole('link', { name: /^Profiles/ })
      .focus();
    await page.keyboard.press('Enter');
    await page.locator('[data-profile="prod"]').waitFor();
    await page.locator('[data-profile="prod"]').getByRole('link', { name: 'prod' }).focus();
    await page.keyboard.press('Enter');
    await page.locator('section[aria-label="profile prod"]').waitFor();
    expect(new URL(page.url()).hash).toBe('#/profile/prod');
    // The page's heading takes the focus, so the keyboard carries on from there.
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
  });

  it("a profile's page: provider, where its secret lives, the contexts that use it, expiry, last caller, recent activity, and only its provider's actions", async () => {
    fake.audit.push(
      {
        time: ago(20),
        profile: 'prod',
        caller: { pid: 4242, name: 'kubectl', client: 'shim' },
        outcome: 'served',
        source: 'cache',
      },
      { time: ago(60), profile: 'prod', caller: { pid: 4100, name: 'k9s', client: 'shim' }, outcome: 'denied' },
      {
        time: ago(90),
        profile: 'ci',
        caller: { pid: 4000, name: 'kubectl', client: 'shim' },
        outcome: 'failed',
        error: 'no token stored for profile "ci": kubecred secret set ci token',
      },
    );
    fake.changed();
    const detail = page.locator('section[aria-label="profile prod"]');
    await detail.locator('table[aria-label="recent activity of prod"] tbody tr').nth(1).waitFor({ timeout: 10_000 });
    const facts = await detail.locator('dl').innerText();
    expect(facts).toMatch(/Provider\s+oidc/);
    expect(facts).toMatch(/Secret kept in\s+the OS keychain/);
    expect(facts).toMatch(/Used by\s+prod-eu\s+prod-us/);
    expect(facts).toMatch(/Clusters\s+https:\/\/prod-eu\.example:6443\s+https:\/\/prod-us\.example:6443/);
    expect(facts).toMatch(/Signed in as\s+ada@example\.com/);
    expect(facts).toMatch(/Expires\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(in 4\d min\)/);
    expect(facts).toMatch(/Last caller\s+kubectl \(pid 4242\), .*served/);
    expect(await detail.locator('.state').innerText()).toMatch(/^signed in as ada@example\.com, 4\d min$/);
    expect(await detail.locator('tr.row-denied').innerText()).toMatch(/k9s \(pid 4100\)[\s\S]*denied/);
    const buttons = await detail.locator('.detail-actions button').allInnerTexts();
    expect(buttons).toEqual(['Log out', 'Edit…', 'Remove…']);
    await axeClean();
    await shot('profile-detail');
    // New-user round 3, N14: removing says which contexts it breaks before it does.
    await detail.getByRole('button', { name: 'Remove…' }).click();
    const confirm = detail.getByRole('group', { name: 'remove prod?' });
    expect(await confirm.innerText()).toMatch(
      /Remove prod from config\.yaml, with its secrets\?\s+Contexts prod-eu, prod-us of your kubeconfig use it: kubectl will fail there/,
    );
    await axeClean();
    await shot('profile-remove-confirm');
    await confirm.getByRole('button', { name: 'Keep' }).click();
    await confirm.waitFor({ state: 'detached' });
    await detail.getByRole('button', { name: 'Log out' }).click();
    await expect.poll(() => fake.calls).toContain('logout prod');

    // A static profile has nothing to log in to, and says where its token lives.
    fake.configs.ci = { provider: 'static', secretStore: 'token:yubikey' };
    await page.goto(`${new URL(ui.url).origin}/#/profile/ci`);
    const ci = page.locator('section[aria-label="profile ci"]');
    await expect
      .poll(() => ci.locator('dl').innerText(), { timeout: 10_000 })
      .toMatch(/Secret kept in\s+hardware token yubikey/);
    expect(await ci.locator('.detail-actions button').allInnerTexts()).toEqual(['Edit…', 'Remove…']);
    expect(await ci.locator('dl').innerText()).toMatch(/Used by\s+No context of your kubeconfig uses this profile yet/);
    // Round 4, N28: a button where a command to type was (webUiUseForContext.test.ts uses it).
    expect(await ci.locator('.used-by').getByRole('button', { name: 'Use for a context…' }).count()).toBe(1);
    expect(await ci.locator('dl').innerText()).not.toContain('Clusters');
    await noHorizontalScroll();
    await axeClean();
  });

  it('status badges: icon, colour and words per state; a locked token and an expiring login say what to do; times count down live without moving the rows', async () => {
    fake.tokens.push({
      name: 'yubikey',
      label: 'YubiKey PIV',
      present: true,
      loggedIn: false,
      flags: { countLow: false, finalTry: false, locked: true },
    });
    fake.profiles.push(
      { name: 'short', provider: 'oidc', state: 'ready', expiresAt: inSeconds(63), lastError: null, account: 'bob' },
      {
        name: 'lab',
        provider: 'oidc',
        state: 'error',
        expiresAt: null,
        lastError:
          'discovering the OIDC issuer for profile "lab" failed: cannot reach https://id.lab.example (ECONNREFUSED)',
      },
      { name: 'openstack', provider: 'keystone', state: 'idle', expiresAt: null, lastError: null },
    );
    fake.changed();
    await nav()
      .getByRole('link', { name: /^Profiles/ })
      .click();
    const badge = (name: string) => page.locator(`[data-profile="${name}"] [data-badge]`);
    await badge('short').waitFor({ timeout: 10_000 });
    await expect.poll(() => badge('ci').getAttribute('data-badge'), { timeout: 10_000 }).toBe('token-locked');
    expect(await page.locator('[data-profile="ci"] .state').innerText()).toBe('token locked');
    expect(await page.locator('[data-profile="ci"] .fix').innerText()).toMatch(
      /Token yubikey is locked by wrong PINs: unlock it with its PUK/,
    );
    expect(await badge('short').getAttribute('data-badge')).toBe('expiring');
    expect(await page.locator('[data-profile="short"] .fix').innerText()).toBe('Log in again before it ends.');
    expect(await badge('lab').getAttribute('data-badge')).toBe('error');
    expect(await badge('openstack').getAttribute('data-badge')).toBe('needs-login');
    expect(await badge('prod').getAttribute('data-badge')).toBe('signed-in');
    // Never colour alone: each kind has its own icon and its words.
    const icons = await page.evaluate(() =>
      Object.fromEntries(
        Array.from(document.querySelectorAll('[data-badge]')).map((b) => [
          b.getAttribute('data-badge'),
          b.querySelector('svg path')?.getAttribute('d'),
        ]),
      ),
    );
    expect(Object.keys(icons).length).toBe(5);
    expect(new Set(Object.values(icons)).size).toBe(5);
    await noHorizontalScroll();
    await axeClean();
    await shot('badges');

    const row = page.locator('[data-profile="short"]');
    const before = {
      text: await row.locator('.state').innerText(),
      box: (await row.boundingBox())!,
      next: (await page.locator('[data-profile="lab"]').boundingBox())!,
    };
    await expect
      .poll(() => row.locator('.state').innerText(), { timeout: 15_000, interval: 250 })
      .not.toBe(before.text);
    expect(await row.locator('.state').innerText()).toMatch(/^signed in as bob, (1 min|\d+ s)$/);
    expect((await row.boundingBox())!).toEqual(before.box);
    expect((await page.locator('[data-profile="lab"]').boundingBox())!).toEqual(before.next);
    // The token's page names the profiles on it, and the profile's page names its token.
    await nav()
      .getByRole('link', { name: /^Hardware tokens/ })
      .click();
    await expect
      .poll(() => page.locator('[data-token="yubikey"]').innerText(), { timeout: 10_000 })
      .toMatch(/keeps the secrets of ci/);
    await axeClean();
    await page.locator('[data-token="yubikey"]').getByRole('link', { name: 'ci' }).click();
    await expect
      .poll(() => page.locator('section[aria-label="profile ci"] dl').innerText(), { timeout: 10_000 })
      .toMatch(/Token\s+yubikey \(YubiKey PIV\): locked by wrong PINs/);
    await shot('token-profile');
  });

  it('Activity: a table filtered by profile, program and outcome, with denials highlighted', async () => {
    await nav()
      .getByRole('link', { name: /^Activity/ })
      .click();
    const log = page.locator('section[aria-label="audit log"]');
    const rows = log.locator('tbody tr');
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(3);
    const denied = log.locator('tr.row-denied');
    expect(await denied.innerText()).toMatch(/k9s[\s\S]*prod[\s\S]*denied/);
    const background = (row: ReturnType<Page['locator']>) =>
      row
        .locator('td')
        .first()
        .evaluate((td) => getComputedStyle(td).backgroundColor);
    expect(await background(denied)).not.toBe(await background(log.locator('tbody tr:not(.row-denied)').first()));
    await shot('activity');

    await log.getByLabel('Outcome').selectOption('denied');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().getAttribute('class')).toBe('row-denied');
    await log.getByLabel('Outcome').selectOption('');
    await log.getByLabel('Profile').selectOption('ci');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().innerText()).toMatch(/failed[\s\S]*kubecred secret set ci token/);
    await log.getByLabel('Profile').selectOption('');
    await log.getByLabel('Program').fill('k9s');
    await expect.poll(() => rows.count()).toBe(1);
    await log.getByLabel('Program').fill('nothing-like-it');
    await log.getByText('No request matches these filters.').waitFor();
    await log.getByLabel('Program').fill('');
    await expect.poll(() => rows.count()).toBe(3);
    await noHorizontalScroll();
    await axeClean();
  });

  it("a question that blocks someone's kubectl shows above whatever section is open", async () => {
    await nav()
      .getByRole('link', { name: /^Settings/ })
      .click();
    await page.locator('section[aria-label="preferences"]').waitFor({ timeout: 10_000 });
    const asked = fake.ports.prompts.askApproval({
      profile: 'prod',
      cluster: 'https://prod.example:6443',
      caller: { pid: 4242, name: 'kubectl' },
    });
    const prompt = page.locator('section[aria-label="approval for prod"]');
    await prompt.waitFor({ timeout: 10_000 });
    // In the viewport, and on top: what is drawn at its middle belongs to it.
    const box = (await prompt.boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.y + Math.min(box.height, 100)).toBeLessThan(600);
    expect(
      await prompt.evaluate((el, at) => el.contains(document.elementFromPoint(at.x, at.y)), {
        x: box.x + box.width / 2,
        y: box.y + Math.min(box.height, 100) / 2,
      }),
    ).toBe(true);
    await noHorizontalScroll();
    await axeClean();
    await shot('prompt-over-settings');
    await prompt.getByRole('button', { name: 'Deny' }).click();
    await expect(asked).resolves.toEqual({ allow: false });
    await prompt.waitFor({ state: 'detached' });
  });

  it('Settings: each control sits beside its label', async () => {
    const prefs = page.locator('section[aria-label="preferences"]');
    const box = (await prefs.locator('input[type="checkbox"]').boundingBox())!;
    const words = (await prefs.getByText('Start Kubecred at login').boundingBox())!;
    expect(Math.abs(box.y + box.height / 2 - (words.y + words.height / 2))).toBeLessThan(6);
    expect(words.x - (box.x + box.width)).toBeLessThan(24);
    const row = prefs.locator('[data-approval="prod"]');
    const name = (await row.locator('label').boundingBox())!;
    const select = (await row.locator('select').boundingBox())!;
    expect(select.x - (name.x + name.width)).toBeLessThan(200);
    expect(Math.abs(name.y + name.height / 2 - (select.y + select.height / 2))).toBeLessThan(6);
    await axeClean();
  });

  it('dark mode follows the OS: dark surfaces, light text, and every section passes axe in it', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    try {
      const colours = await page.evaluate(() => ({
        body: getComputedStyle(document.body).backgroundColor,
        text: getComputedStyle(document.body).color,
      }));
      const lightness = (rgb: string) =>
        rgb
          .match(/\d+/g)!
          .slice(0, 3)
          .map(Number)
          .reduce((a, b) => a + b, 0) / 3;
      expect(lightness(colours.body)).toBeLessThan(60);
      expect(lightness(colours.text)).toBeGreaterThan(200);
      for (const section of ['Profiles', 'Hardware tokens', 'Registries', 'Activity', 'Settings']) {
        await nav()
          .getByRole('link', { name: new RegExp(`^${section}`) })
          .click();
        await page.getByRole('heading', { name: new RegExp(section, 'i'), level: 1 }).waitFor();
        await noHorizontalScroll();
        expect(await seriousAxeViolations(page), section).toEqual([]);
        await page.screenshot({
          path: path.join(SHOTS, `design-section-${section.toLowerCase().replace(' ', '-')}-dark.png`),
        });
      }
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
    }
  });

  it('narrower than the nav can stand beside (560 px), the nav becomes a row above the section, and nothing scrolls sideways', async () => {
    await page.setViewportSize({ width: 560, height: 600 });
    try {
      await nav()
        .getByRole('link', { name: /^Profiles/ })
        .click();
      await page.locator('[data-profile="prod"]').waitFor();
      const navBox = (await nav().boundingBox())!;
      expect(navBox.y + navBox.height).toBeLessThanOrEqual(
        (await page.getByRole('heading', { name: 'Profiles', level: 1 }).boundingBox())!.y,
      );
      await noHorizontalScroll();
      await axeClean();
      await shot('narrow');
    } finally {
      await page.setViewportSize({ width: 800, height: 600 });
    }
  });

  // Round 4, N28: at 1280 px "Hardware tokens" filled its pill edge to edge (in bold, when open).
  it('at 1280 px every nav label, open (bold) or not, leaves room in its pill', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    try {
      await nav()
        .getByRole('link', { name: /^Hardware tokens/ })
        .click();
      await page.getByRole('heading', { name: 'Hardware tokens', level: 1 }).waitFor();
      const room = await page.evaluate(() =>
        Array.from(document.querySelectorAll<HTMLElement>('.nav a')).map((link) => {
          const label = link.querySelector('.nav-label')!;
          const text = document.createRange();
          text.selectNodeContents(label);
          const count = link.querySelector('.nav-count')?.getBoundingClientRect().right ?? 0;
          const inner = link.getBoundingClientRect().right - parseFloat(getComputedStyle(link).paddingRight);
          return {
            label: label.textContent,
            room: Math.floor(inner - Math.max(text.getBoundingClientRect().right, count)),
          };
        }),
      );
      const tokens = room.find((r) => r.label === 'Hardware tokens')!;
      expect(tokens.room, JSON.stringify(room)).toBeGreaterThanOrEqual(24);
      await shot('nav-1280');
    } finally {
      await page.setViewportSize({ width: 800, height: 600 });
    }
  });

  it('the page logged no errors', () => {
    expect(pageProblems).toEqual([]);
  });
});
