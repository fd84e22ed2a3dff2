import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PromptQueue } from '../../src/main/ui/promptQueue.js';
import { startWebUi } from '../../src/main/webui/startWebUi.js';
import type { WebUi, WebUiPorts } from '../../src/main/webui/webUiPorts.js';
import type { AuditEntry, ImportPreview, Preferences } from '../../src/shared/api/webUiApi.js';
import type { Interaction, ProfileSummary } from '../../src/shared/api/status.js';
import { seriousAxeViolations } from '../support/axe.js';
import { buildRenderer, launchChromium, type TestChromium } from '../support/chromium.js';
import { previewOnlyImport } from '../support/importPreviewService.js';
import { REPO_ROOT } from '../support/repo.js';

const SHOTS = process.env.KUBECRED_SHOTS ?? path.join(REPO_ROOT, 'test-results', 'screenshots');
const RENDERER = path.join(REPO_ROOT, 'dist', 'renderer');
const inMinutes = (m: number) => new Date(Date.now() + m * 60_000 + 30_000).toISOString();

/** An import that finds nothing to move: one user already fine, two Kubecred cannot take over. */
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
    { file: '/home/ada/.kube/config', user: 'anonymous', reason: 'it has no credentials' },
  ],
  diff: '',
  fingerprint: 'nothing',
};

/** A broker stand-in in every state the new-user walk met: each profile kind, each prompt, a failed request. */
function lookPorts(crowd?: { profiles: ProfileSummary[]; preview: ImportPreview }) {
  const profiles: ProfileSummary[] = crowd?.profiles ?? [
    { name: 'ci', provider: 'static', state: 'idle', expiresAt: null, lastError: null },
    { name: 'aks', provider: 'exec', state: 'ready', expiresAt: inMinutes(50), lastError: null },
    {
      name: 'prod',
      provider: 'oidc',
      state: 'ready',
      expiresAt: inMinutes(42),
      lastError: null,
      account: 'ada@example.com',
      silentRefresh: true,
    },
    { name: 'sso', provider: 'oidc', state: 'idle', expiresAt: null, lastError: null, silentRefresh: true },
    {
      name: 'lab',
      provider: 'oidc',
      state: 'error',
      expiresAt: null,
      lastError:
        'discovering the OIDC issuer for profile "lab" failed: cannot reach https://id.lab.example (ECONNREFUSED)',
    },
    { name: 'openstack', provider: 'keystone', state: 'idle', expiresAt: null, lastError: null },
    // eks: a role behind an MFA code, with no AWS session held; and plain keys.
    {
      name: 'eks-admin',
      provider: 'eks',
      login: true,
      state: 'idle',
      expiresAt: null,
      lastError: null,
      silentRefresh: false,
    },
    {
      name: 'eks-ci',
      provider: 'eks',
      login: false,
      state: 'idle',
      expiresAt: null,
      lastError: null,
      silentRefresh: true,
    },
  ];
  const listeners = new Set<() => void>();
  const broken = { configError: 'line 4: not valid YAML: Sequence item without - indicator' as string | null };
  const interactions: Interaction[] = [
    { profile: 'sso', kind: 'device', userCode: 'WDJB-MJHT', verificationUri: 'https://id.example.com/device' },
  ];
  const audit: AuditEntry[] = [
    {
      time: new Date().toISOString(),
      profile: 'lab',
      caller: { pid: 4242, name: 'kubectl', client: 'shim' },
      outcome: 'failed',
      error: 'discovering the OIDC issuer for profile "lab" failed: cannot reach https://id.lab.example (ECONNREFUSED)',
    },
    {
      time: new Date().toISOString(),
      profile: 'prod',
      caller: { pid: 4241, name: 'kubectl', client: 'shim' },
      outcome: 'served',
      source: 'cache',
    },
  ];
  const prefs: Preferences = {
    profiles: profiles.map((p) => ({ name: p.name, approval: p.name === 'prod' ? 'always' : 'never' })),
    tokens: [{ name: 'yubikey', pinGrace: '15m' }],
    startAtLogin: { enabled: true },
  };
  const kubeconfigImport = previewOnlyImport(crowd?.preview ?? NOTHING_TO_MOVE);
  const ports: WebUiPorts = {
    profiles: async () => profiles.map((p) => ({ ...p })),
    registries: async () => [{ name: 'quay', matchImages: ['quay.io/team'], login: 'store' }],
    interactions: () => [...interactions],
    onChange: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    login: async () => undefined,
    cancelLogin: async () => undefined,
    logout: async () => undefined,
    prompts: new PromptQueue({ timeoutMs: 60_000 }),
    addProfile: async () => undefined,
    installProfile: async () => Promise.reject(new Error('this test installs nothing')),
    removeProfile: async () => undefined,
    profileConfig: async (name) => ({ name }),
    updateProfile: async () => undefined,
    storeSecret: async () => undefined,
    auditLog: async () => audit,
    tokens: async () => [
      {
        name: 'yubikey',
        label: 'YubiKey PIV #1234',
        present: true,
        loggedIn: false,
        flags: { countLow: true, finalTry: false, locked: false },
      },
    ],
    updateToken: async () => undefined,
    preferences: async () => structuredClone(prefs),
    configError: async () => broken.configError,
    setStartAtLogin: async () => undefined,
    kubeconfigImport,
  };
  /** config.yaml fixed: the page hears of it as it would from the broker. */
  const fixConfig = () => {
    broken.configError = null;
    listeners.forEach((l) => l());
  };
  return { ports, fixConfig };
}

// New-user findings 6, 7, 9, 12 and 19 as a person sees them, at 800x600 in light and in dark.
describe('the main window, every screen in light and dark', () => {
  let ui: WebUi;
  let ports: WebUiPorts;
  let fixConfig: () => void;
  let browser: TestChromium;
  let page: Page;
  const pageProblems: string[] = [];
  /** Opens a section from the nav, as a person does. */
  const open = (section: string) =>
    page
      .getByRole('navigation', { name: 'sections' })
      .getByRole('link', { name: new RegExp(`^${section}`) })
      .click();
  const shot = async (name: string) => {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: path.join(SHOTS, `look-${name}-${colorScheme}.png`) });
      await page.screenshot({ path: path.join(SHOTS, `look-${name}-${colorScheme}-full.png`), fullPage: true });
    }
    await page.emulateMedia({ colorScheme: 'light' });
  };

  beforeAll(async () => {
    await buildRenderer();
    await mkdir(SHOTS, { recursive: true });
    ({ ports, fixConfig } = lookPorts());
    ui = await startWebUi({ ports, rendererDir: RENDERER });
    browser = await launchChromium({ width: 800, height: 600 });
    page = browser.page;
    page.on('console', (m) => m.type() === 'error' && pageProblems.push(m.text()));
    page.on('pageerror', (e) => pageProblems.push(e.message));
    await page.goto(ui.url);
    await page.locator('[data-profile="ci"]').waitFor({ timeout: 10_000 });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await ui?.close();
  });

  it('each profile says what it needs: no Log in where nobody signs in, "will refresh on use" where a refresh token waits', async () => {
    const state = (name: string) => page.locator(`[data-profile="${name}"] .state`).innerText();
    const logIn = (name: string) =>
      page.locator(`[data-profile="${name}"]`).getByRole('button', { name: 'Log in' }).count();
    expect(await state('ci')).toBe('not used yet');
    expect(await logIn('ci')).toBe(0);
    expect(await logIn('aks')).toBe(0);
    expect(await state('prod')).toMatch(/^signed in as ada@example\.com, 4\d min$/);
    expect(await logIn('prod')).toBe(0);
    expect(await state('sso')).toBe('will refresh on use');
    // It renews itself, so signing in is offered but is not the row's main action.
    expect(
      await page.locator('[data-profile="sso"]').getByRole('button', { name: 'Log in' }).getAttribute('class'),
    ).toBe('secondary');
    expect(await logIn('openstack')).toBe(1);
    // An MFA role with no session held: someone must type a code, so Log in is the main action.
    expect(await state('eks-admin')).toBe('signed out');
    expect(
      await page.locator('[data-profile="eks-admin"]').getByRole('button', { name: 'Log in' }).getAttribute('class'),
    ).not.toBe('secondary');
    expect(await state('eks-ci')).toBe('not used yet');
    expect(await logIn('eks-ci')).toBe(0);
    expect(await page.getByRole('alert').first().innerText()).toMatch(/config\.yaml cannot be used: line 4/);
    await page.locator('[data-profile="ci"]').scrollIntoViewIfNeeded();
    await shot('profiles');
    // Not logged in is not "locked" (which a card is after too many wrong PINs).
    await open('Hardware tokens');
    expect(await page.locator('[data-token="yubikey"] .state').innerText()).toBe('present, asks for its PIN on use');
    await shot('tokens');
    await open('Profiles');
    await page.locator('[data-profile="ci"]').waitFor();
  });

  it('a profile with an error keeps its buttons on the same row as a profile without one', async () => {
    const top = async (name: string) =>
      (await page.locator(`[data-profile="${name}"] .actions`).boundingBox())!.y -
      (await page.locator(`[data-profile="${name}"]`).boundingBox())!.y;
    expect(Math.abs((await top('lab')) - (await top('openstack')))).toBeLessThan(2);
  });

  it('the device code card keeps Copy and Cancel apart', async () => {
    const card = page.locator('[data-login="sso"]');
    const copy = (await card.getByRole('button', { name: 'Copy' }).boundingBox())!;
    const cancel = (await card.getByRole('button', { name: 'Cancel' }).boundingBox())!;
    expect(cancel.x - (copy.x + copy.width)).toBeGreaterThanOrEqual(6);
    await card.scrollIntoViewIfNeeded();
    await shot('device-code');
  });

  it('the PIN prompt names the program asking; the passphrase prompt for a new store says Create', async () => {
    const pin = ports.prompts.askPin({
      token: 'yubikey',
      tokenLabel: 'YubiKey PIV #1234',
      flags: { countLow: true, finalTry: false, locked: false },
      caller: 'kubectl (pid 4242)',
    });
    const pinForm = page.locator('form[aria-label="PIN for yubikey"]');
    await pinForm.waitFor({ timeout: 10_000 });
    expect(await pinForm.innerText()).toMatch(/kubectl \(pid 4242\)\s+needs the PIN of token\s+yubikey/);
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot('pin');
    await pinForm.getByRole('button', { name: 'Cancel' }).click();
    await expect(pin).resolves.toBeNull();

    const passphrase = ports.prompts.askPassphrase({ store: 'files', create: true });
    const form = page.locator('form[aria-label="passphrase for files"]');
    await form.waitFor({ timeout: 10_000 });
    expect(await form.getByRole('button', { name: 'Create', exact: true }).count()).toBe(1);
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot('passphrase');
    await form.getByRole('button', { name: 'Cancel' }).click();
    await expect(passphrase).resolves.toBeNull();
  });

  it('an import with nothing to move says why for each user and offers no Import button', async () => {
    await page.getByRole('link', { name: 'Import kubeconfig' }).click();
    const wizard = page.locator('section[aria-label="kubeconfig import"]');
    await wizard.getByRole('button', { name: 'Look at my kubeconfig' }).click();
    await wizard.locator('[data-left="old-admin"]').waitFor({ timeout: 10_000 });
    expect(await wizard.locator('[data-left="old-admin"]').innerText()).toMatch(/old-admin[\s\S]*basic auth/);
    expect(await wizard.locator('[data-left="anonymous"]').innerText()).toMatch(/anonymous[\s\S]*has no credentials/);
    expect(await wizard.getByRole('button', { name: /^Import/ }).count()).toBe(0);
    expect(await wizard.innerText()).toMatch(/Nothing to move/);
    await wizard.scrollIntoViewIfNeeded();
    await shot('import-nothing');
    await wizard.getByRole('button', { name: 'Close' }).click();
    await wizard.getByRole('button', { name: 'Look at my kubeconfig' }).waitFor();
    await open('Profiles');
  });

  it('while config.yaml is broken, Preferences says its settings wait for the file instead of showing none', async () => {
    await open('Settings');
    const prefs = page.locator('section[aria-label="preferences"]');
    await prefs.waitFor({ timeout: 10_000 });
    expect(await prefs.innerText()).toMatch(/kept in config\.yaml, which cannot be read now/);
    expect(await prefs.locator('[data-approval]').count()).toBe(0);
    await prefs.scrollIntoViewIfNeeded();
    await shot('preferences-config-broken');
    fixConfig();
    await expect.poll(() => page.getByText('config.yaml cannot be used').count(), { timeout: 10_000 }).toBe(0);
  });

  it('Preferences: the start-at-login box sits beside its words; the audit log shows why a request failed', async () => {
    const prefs = page.locator('section[aria-label="preferences"]');
    await prefs.locator('[data-approval="prod"]').waitFor({ timeout: 10_000 });
    const box = (await prefs.locator('input[type="checkbox"]').boundingBox())!;
    const label = (await prefs.locator('label', { hasText: 'Start Kubecred at login' }).locator('span').boundingBox())!;
    expect(Math.abs(box.y + box.height / 2 - (label.y + label.height / 2))).toBeLessThan(6);
    expect(label.x).toBeGreaterThan(box.x + box.width);
    await prefs.scrollIntoViewIfNeeded();
    await shot('preferences');

    await open('Activity');
    const audit = page.locator('section[aria-label="audit log"]');
    await audit.locator('[data-audit-profile="lab"] .audit-error').waitFor({ timeout: 10_000 });
    expect(await audit.locator('[data-audit-profile="lab"]').innerText()).toMatch(/failed[\s\S]*ECONNREFUSED/);
    await audit.scrollIntoViewIfNeeded();
    await shot('audit');
    await open('Profiles');
    await page.locator('[data-profile="ci"]').waitFor();
  });

  it.each(['light', 'dark'] as const)(
    'axe-core finds no serious or critical violation on the main window (%s)',
    async (colorScheme) => {
      await page.emulateMedia({ colorScheme });
      try {
        expect(await seriousAxeViolations(page)).toEqual([]);
      } finally {
        await page.emulateMedia({ colorScheme: 'light' });
      }
    },
  );

  it('the page logged no errors', () => {
    expect(pageProblems).toEqual([]);
  });
});

/** A plan that moves four users, one with a note, and leaves one: the screen of N3. */
const FOUR_MOVES: ImportPreview = {
  files: ['/home/ada/.kube/config'],
  moves: [
    {
      file: '/home/ada/.kube/config',
      user: 'dev-admin',
      profile: 'dev-admin',
      provider: 'static',
      secrets: ['token'],
      notes: [],
      news: [],
      contexts: [],
      profileText: '',
      ownLoginChosen: false,
    },
    {
      file: '/home/ada/.kube/config',
      user: 'ci-deploy',
      profile: 'ci-deploy',
      provider: 'static',
      secrets: ['client certificate', 'client key'],
      notes: [],
      news: [],
      contexts: [],
      profileText: '',
      ownLoginChosen: false,
    },
    {
      file: '/home/ada/.kube/config',
      user: 'gke',
      profile: 'gke',
      provider: 'exec',
      secrets: [],
      notes: [],
      news: [],
      contexts: [],
      profileText: '',
      ownLoginChosen: false,
    },
    {
      file: '/home/ada/.kube/config',
      user: 'eks-prod',
      profile: 'eks-prod',
      provider: 'eks',
      secrets: [],
      notes: [],
      contexts: [],
      profileText: '',
      ownLoginChosen: false,
      news: [
        'this was aws eks get-token: Kubecred now makes the same tokens itself from AWS profile "team" through role arn:aws:iam::123456789012:role/admin, one session for every cluster and caller (kubecred doctor checks the profile)',
      ],
    },
  ],
  left: [{ file: '/home/ada/.kube/config', user: 'anonymous', reason: 'it has no credentials' }],
  diff: [
    '--- /home/ada/.kube/config',
    '+++ /home/ada/.kube/config',
    '@@ -10,3 +10,8 @@',
    '-    token: <redacted>',
    '+    exec:',
    '+      command: /opt/kubecred/kubecred-shim',
  ].join('\n'),
  fingerprint: 'four',
};

const PROVIDERS = ['static', 'oidc', 'exec', 'eks', 'keystone'] as const;
/** `count` profiles as a team with many clusters has them: long names, several states, contexts. */
function crowd(count: number): ProfileSummary[] {
  return Array.from({ length: count }, (_, i) => ({
    name:
      i % 7 === 3 ? `arn-aws-eks-eu-west-1-123456789012-cluster-team-${i}` : `cluster-${String(i).padStart(2, '0')}`,
    provider: PROVIDERS[i % PROVIDERS.length]!,
    state: i % 9 === 4 ? ('error' as const) : i % 3 === 0 ? ('ready' as const) : ('idle' as const),
    expiresAt: i % 3 === 0 ? inMinutes(30 + i) : null,
    lastError: i % 9 === 4 ? `the plugin of cluster-${i} exited 1: run gcloud auth login` : null,
    description: `imported from user u${i} of /home/ada/.kube/config`,
    contexts: [`ctx-${i}`, ...(i % 4 === 0 ? [`ctx-${i}-admin`] : [])],
  }));
}

// Round 3, N3 and screens 10, 23, 60: a plan read as stacked fragments, 8 profiles took two
// screens, long names wrapped to 4 lines. At 1280x800, as a person with many clusters sees it.
describe('the main window with many profiles, and an import that moves several users', () => {
  let ui: WebUi;
  let browser: TestChromium;
  let page: Page;
  /** A screenshot in each theme, and axe-core's serious and critical findings in each (none expected). */
  const shotBoth = async (name: string) => {
    const found: unknown[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: path.join(SHOTS, `look-${name}-${colorScheme}.png`) });
      found.push(...(await seriousAxeViolations(page)));
    }
    await page.emulateMedia({ colorScheme: 'light' });
    expect(found).toEqual([]);
  };
  const open = async (count: number) => {
    await ui?.close();
    ui = await startWebUi({
      ports: lookPorts({ profiles: crowd(count), preview: FOUR_MOVES }).ports,
      rendererDir: RENDERER,
    });
    await page.goto(ui.url);
    await page.locator('[data-profile="cluster-00"]').waitFor({ timeout: 10_000 });
  };

  beforeAll(async () => {
    await buildRenderer();
    await mkdir(SHOTS, { recursive: true });
    browser = await launchChromium({ width: 1280, height: 800 });
    page = browser.page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await ui?.close();
  });

  it('8 profiles fit on one 1280x800 screen, each on one line with its state readable', async () => {
    await open(8);
    const rows = page.locator('ul[aria-label="profiles"] > li');
    expect(await rows.count()).toBe(8);
    const boxes = await rows.evaluateAll((items) =>
      items.map((item) => item.getBoundingClientRect().toJSON() as DOMRect),
    );
    expect(boxes.at(-1)!.bottom).toBeLessThanOrEqual(800);
    // A row without a problem is one line: no taller than a button and its padding.
    const plain = await page.locator('[data-profile="cluster-00"]').boundingBox();
    expect(plain!.height).toBeLessThanOrEqual(50);
    // A long name stays on one line, cut with an ellipsis; the whole of it is its tooltip.
    const long = page.locator('[data-profile^="arn-aws-eks"] a.profile-name');
    const box = (await long.boundingBox())!;
    expect(box.height).toBeLessThan(26);
    expect(await long.getAttribute('title')).toMatch(
      /^arn-aws-eks-eu-west-1-123456789012-cluster-team-3: imported from/,
    );
    for (const state of await page.locator('ul[aria-label="profiles"] .state').allInnerTexts())
      expect(state).not.toBe('');
    await shotBoth('profiles-8-1280');
  });

  it('50 profiles: a filter finds one by name, kind or context and says how many match', async () => {
    await open(50);
    const filter = page.getByRole('searchbox', { name: 'Filter profiles' });
    expect(await page.locator('.list-filter').innerText()).toContain('50 profiles');
    await filter.fill('ctx-17');
    await expect.poll(() => page.locator('ul[aria-label="profiles"] > li').count()).toBe(1);
    expect(await page.locator('.list-filter').innerText()).toContain('1 of 50');
    await filter.fill('keystone');
    await expect.poll(() => page.locator('ul[aria-label="profiles"] > li').count()).toBe(10);
    await filter.fill('no such thing');
    await expect.poll(() => page.getByText('No profile matches “no such thing”.').count()).toBe(1);
    await filter.fill('');
    await shotBoth('profiles-50-1280');
  });

  it('the import plan: one sentence per user, a note a line, the diff on request, and one scroll', async () => {
    await page.getByRole('link', { name: 'Import kubeconfig' }).click();
    const wizard = page.locator('section[aria-label="kubeconfig import"]');
    await wizard.getByRole('button', { name: 'Look at my kubeconfig' }).click();
    const move = wizard.locator('[data-move="ci-deploy"]');
    await move.waitFor({ timeout: 10_000 });
    const sentence = move.locator('.move-line');
    expect(await sentence.innerText()).toBe('ci-deploy becomes a static profile named ci-deploy');
    // One line: no taller than one line of text.
    expect((await sentence.boundingBox())!.height).toBeLessThan(30);
    expect(await move.locator('.move-secrets').innerText()).toMatch(
      /^into the secret store:\s+client certificate\s+client key$/,
    );
    // N13: the eks row's line is good news, not a warning, and as quiet as a note.
    expect(await wizard.locator('[data-move="eks-prod"] .note').count()).toBe(0);
    const news = wizard.locator('[data-move="eks-prod"] .news');
    expect(await news.evaluate((el) => getComputedStyle(el).fontWeight)).toBe('400');
    // The diff is closed; opened, it grows the page rather than scrolling inside itself.
    const diff = wizard.locator('pre[aria-label="kubeconfig diff"]');
    expect(await diff.isVisible()).toBe(false);
    await wizard.getByText(/line by line/).click();
    expect(await diff.isVisible()).toBe(true);
    expect(await diff.evaluate((el) => el.scrollHeight <= el.clientHeight + 1)).toBe(true);
    await shotBoth('import-plan-1280');
  });
});
