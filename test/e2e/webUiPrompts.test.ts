import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PromptQueue } from '../../src/main/ui/promptQueue.js';
import { startWebUi } from '../../src/main/webui/startWebUi.js';
import type { WebUi, WebUiPorts } from '../../src/main/webui/webUiPorts.js';
import { promptPageRoute } from '../../src/shared/api/pageRoutes.js';
import { seriousAxeViolations } from '../support/axe.js';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { buildRenderer, launchChromium, type TestChromium } from '../support/chromium.js';
import { startKeystoneStandIn, STAND_IN_DATA, type KeystoneStandIn } from '../support/keystoneStandIn.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { REPO_ROOT, assertBuilt } from '../support/repo.js';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';
import { promptWindowHeight } from '../../src/main/electron/windowOptions.js';

const PIN = '192837';
const SHOTS = process.env.KUBECRED_SHOTS ?? path.join(REPO_ROOT, 'test-results', 'screenshots');
const ALICE = STAND_IN_DATA.users.find((u) => u.name === 'alice')!;
/** The tray app's prompt window (src/main/electron/windowOptions.ts). */
const PROMPT_WINDOW = { width: 440, height: 340 };

type Kind = 'pin' | 'passphrase' | 'approval' | 'form';

// Issue 16: each prompt is a small dialog of its own, answered by keyboard only: the cursor
// starts in its input, Enter answers, Escape cancels; it names the program, warns about PIN
// tries, counts down to its timeout, and axe-core finds nothing serious, in light and dark.
describe('the prompts of a real broker, by keyboard only', () => {
  let home: TempHome;
  let hsm: SoftHsm;
  let keystone: KeystoneStandIn;
  let broker: TestBroker;
  let chromium: TestChromium;
  let main: Page;
  let browserStandIn: RecordingBrowser;
  const pageProblems: string[] = [];
  const { cli, credential } = callersFor(
    () => home.dir,
    () => ({ SOFTHSM2_CONF: hsm.conf }),
  );

  /** The pending prompt of that kind (its id, and a form's fields), as the main window's session sees it. */
  const pendingPrompt = async (kind: Kind): Promise<{ id: string; kind: string; fields?: unknown[] }> => {
    await expect
      .poll(
        () =>
          main.evaluate(async (k) => {
            const response = await fetch('/api/state', {
              headers: { authorization: `Bearer ${sessionStorage.getItem('kubecred-session')}` },
            });
            return (
              ((await response.json()) as { prompts: Array<{ id: string; kind: string }> }).prompts.find(
                (p) => p.kind === k,
              )?.id ?? null
            );
          }, kind),
        { timeout: 15_000 },
      )
      .not.toBeNull();
    return main.evaluate(async (k) => {
      const response = await fetch('/api/state', {
        headers: { authorization: `Bearer ${sessionStorage.getItem('kubecred-session')}` },
      });
      return (
        (await response.json()) as { prompts: Array<{ id: string; kind: string; fields?: unknown[] }> }
      ).prompts.find((p) => p.kind === k)!;
    }, kind);
  };
  /** A prompt window at the tray app's size, opened from the main window as the tray does (its session travels with it). */
  const promptWindow = async (kind: Kind): Promise<Page> => {
    const prompt = await pendingPrompt(kind);
    const id = prompt.id;
    const [popup] = await Promise.all([
      main.waitForEvent('popup'),
      main.evaluate((route) => void window.open(route, '_blank', 'popup,width=440,height=340'), promptPageRoute(id)),
    ]);
    // The tray's window for this question: a form's grows with its fields (windowOptions.ts).
    await popup.setViewportSize({
      width: PROMPT_WINDOW.width,
      height: promptWindowHeight({ kind: prompt.kind as Kind, ...(prompt.fields ? { fields: prompt.fields } : {}) }),
    });
    popup.on('console', (m) => m.type() === 'error' && pageProblems.push(`${kind} window: ${m.text()}`));
    popup.on('pageerror', (e) => pageProblems.push(e.message));
    await popup
      .getByRole('dialog')
      .waitFor({ timeout: 10_000 })
      .catch(async (error: Error) => {
        const said = popup.isClosed()
          ? '(closed)'
          : await popup
              .locator('body')
              .innerText()
              .catch(() => '?');
        throw new Error(
          `no ${kind} dialog in the prompt window for ${id}: it says ${JSON.stringify(said)}; page problems ${JSON.stringify(pageProblems)}`,
          { cause: error },
        );
      });
    return popup;
  };
  const focused = (page: Page) =>
    page.evaluate(() => {
      const e = document.activeElement as HTMLElement | null;
      return e
        ? `${e.tagName.toLowerCase()}${e.getAttribute('name') ? `[name=${e.getAttribute('name')}]` : ''}${e.tagName === 'BUTTON' ? `:${e.textContent}` : ''}`
        : '';
    });
  /** Seconds left on the prompt's countdown ("Times out in 1:58"). */
  const countdown = async (page: Page): Promise<number> => {
    const text = await page.getByRole('timer').innerText();
    const [, m, s] = /(\d+):(\d\d)/.exec(text) ?? [];
    expect(m, `countdown "${text}"`).toBeDefined();
    return Number(m) * 60 + Number(s);
  };
  /** The countdown shows, and moves. */
  const expectCountingDown = async (page: Page) => {
    const first = await countdown(page);
    expect(first).toBeGreaterThan(60);
    expect(first).toBeLessThanOrEqual(120);
    await expect.poll(() => countdown(page), { timeout: 5_000 }).toBeLessThan(first);
  };
  /** The dialog as assistive technology sees it: a modal, named by its heading. */
  const expectDialog = async (page: Page, name: RegExp) => {
    const dialog = page.getByRole('dialog', { name });
    await dialog.waitFor();
    expect(await dialog.getAttribute('aria-modal')).toBe('true');
    expect(await dialog.getAttribute('aria-describedby')).toBeTruthy();
  };
  /** Screenshots and axe-core in light and dark. */
  const lookAndAxe = async (page: Page, name: string) => {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: path.join(SHOTS, `prompt-${name}-${colorScheme}.png`) });
      expect(await seriousAxeViolations(page), `${name} in ${colorScheme}`).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  };
  /**
   * A process told no (a cancel, a denial, a wrong PIN) is told the same again for 5 s when it
   * asks the same profile (client-go runs a failed plugin again at once); then it is asked anew.
   */
  const afterTheRepeatWindow = () => new Promise((resolve) => setTimeout(resolve, 5_500));
  /** The key that answers: the window may close itself before the key is even released. */
  const answerBy = async (page: Page, key: 'Enter' | 'Escape') => {
    await page.keyboard.press(key).catch((error: unknown) => {
      if (!page.isClosed()) throw error;
    });
  };
  /** The window closes itself once answered (or says so where the browser refuses). */
  const ended = async (page: Page) => {
    await expect
      .poll(async () => page.isClosed() || (await page.getByRole('status').count()) > 0, { timeout: 10_000 })
      .toBe(true);
    if (!page.isClosed()) await page.close();
  };

  beforeAll(async () => {
    assertBuilt({ shim: true });
    await buildRenderer();
    await mkdir(SHOTS, { recursive: true });
    home = await makeTempHome();
    hsm = await createSoftHsm({ dir: path.join(home.dir, 'hsm'), label: 'kc-prompts', pin: PIN, soPin: '56473829' });
    keystone = await startKeystoneStandIn();
    await writeConfig(
      home.dir,
      [
        'tokens:',
        `  - { name: hsm, module: ${hsm.module}, label: kc-prompts }`,
        'profiles:',
        '  - { name: onhsm, provider: static, secretStore: "token:hsm" }',
        '  - { name: guarded, provider: static, approval: always }',
        '  - { name: filed, provider: static, secretStore: encrypted-file }',
        `  - { name: openstack, provider: keystone, authUrl: ${keystone.authUrl}, projectName: demo, projectDomainName: Default }`,
        '',
      ].join('\n'),
    );
    browserStandIn = await recordingBrowser(home.dir);
    broker = await startTestBroker(home.dir, { SOFTHSM2_CONF: hsm.conf, KUBECRED_BROWSER: browserStandIn.command }, [
      '--ui',
    ]);
    expect((await cli(['token', 'login', 'hsm'], PIN)).code).toBe(0);
    expect((await cli(['secret', 'set', 'onhsm', 'token'], 'token-behind-the-pin')).code).toBe(0);
    expect((await cli(['secret', 'set', 'guarded', 'token'], 'token-behind-the-approval')).code).toBe(0);
    expect((await cli(['lock'])).code).toBe(0);
    chromium = await launchChromium({ width: 800, height: 600 });
    main = chromium.page;
    main.on('console', (m) => m.type() === 'error' && pageProblems.push(m.text()));
    main.on('pageerror', (e) => pageProblems.push(e.message));
    await browserStandIn.openIn(main, 0, 10_000);
    await main.locator('[data-profile="onhsm"]').waitFor({ timeout: 10_000 });
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await broker?.stop();
    await keystone?.close();
    hsm?.dispose();
    await home?.cleanup();
  });

  it('PIN window: the cursor is in the PIN, it names the program and counts down; typing and Enter unlock', async () => {
    const asking = credential('onhsm');
    const window = await promptWindow('pin');
    await expectDialog(window, /PIN for kc-prompts/);
    expect(await focused(window)).toBe('input[name=pin]');
    const dialog = window.getByRole('dialog');
    expect(await dialog.innerText()).toMatch(/\(pid \d+\) needs the PIN of token hsm\s+for profile onhsm/);
    await expectCountingDown(window);
    // Nothing spills out of the 440x340 window sideways.
    expect(await window.evaluate(() => document.documentElement.scrollWidth <= globalThis.innerWidth)).toBe(true);
    await window.keyboard.type(PIN);
    await lookAndAxe(window, 'pin-window');
    // Tab walks the answers: Unlock, then Cancel.
    await window.keyboard.press('Tab');
    expect(await focused(window)).toBe('button:Unlock');
    await window.keyboard.press('Tab');
    expect(await focused(window)).toBe('button:Cancel');
    await window.keyboard.press('Shift+Tab');
    await window.keyboard.press('Shift+Tab');
    expect(await focused(window)).toBe('input[name=pin]');
    await answerBy(window, 'Enter');
    const served = await asking;
    expect(served.code, served.stderr).toBe(0);
    expect(JSON.parse(served.stdout).status.token).toBe('token-behind-the-pin');
    await ended(window);
  });

  it('PIN in the main window: a modal dialog over it; Escape cancels and the program is told', async () => {
    expect((await cli(['lock'])).code).toBe(0);
    // Someone is working in the window when the question comes; afterwards the focus is back there.
    const before = main.locator('main button:visible').first();
    await before.focus();
    const working = await focused(main);
    const asking = credential('onhsm');
    await expectDialog(main, /PIN for kc-prompts/);
    expect(await focused(main)).toBe('input[name=pin]');
    // The rest of the window waits: a modal dialog makes it inert.
    expect(await main.evaluate(() => document.querySelector('dialog.prompt-dialog')?.matches(':modal'))).toBe(true);
    await expectCountingDown(main);
    await lookAndAxe(main, 'pin-main-window');
    await main.keyboard.press('Escape');
    const cancelled = await asking;
    expect(cancelled.code).toBe(1);
    expect(cancelled.stderr).toMatch(/cancel|PIN/i);
    await main.getByRole('dialog').waitFor({ state: 'detached', timeout: 10_000 });
    expect(await focused(main)).toBe(working);
  });

  it('a wrong PIN: the next prompt says few tries are left, before the right PIN unlocks', async () => {
    await afterTheRepeatWindow();
    const wrong = credential('onhsm');
    await expectDialog(main, /PIN for kc-prompts/);
    expect(await main.getByRole('dialog').getByRole('alert').count()).toBe(0);
    await main.keyboard.type('000000');
    await main.keyboard.press('Enter');
    expect((await wrong).stderr).toMatch(/PIN was incorrect/);
    // Where it was typed, the token's answer: wrong, and the tries left; Enter closes it.
    await expectDialog(main, /Wrong PIN for kc-prompts/);
    expect(await main.getByRole('dialog').innerText()).toMatch(/The token refused this PIN/);
    await main.keyboard.press('Enter');
    await main.getByRole('dialog').waitFor({ state: 'detached', timeout: 10_000 });

    await afterTheRepeatWindow();
    const asking = credential('onhsm');
    const window = await promptWindow('pin');
    const warning = window.getByRole('dialog').getByRole('alert');
    await warning.waitFor({ timeout: 10_000 });
    expect(await warning.innerText()).toMatch(/Few tries left[\s\S]*few tries are left before the token locks/);
    expect(await focused(window)).toBe('input[name=pin]');
    await lookAndAxe(window, 'pin-tries-left');
    await window.keyboard.type(PIN);
    await answerBy(window, 'Enter');
    expect((await asking).code).toBe(0);
    await ended(window);
  });

  it('approval window: Enter allows once (not before the prompt could be read), Escape denies; the program and its executable on demand', async () => {
    const asking = credential('guarded');
    const window = await promptWindow('approval');
    await expectDialog(window, /Allow access to guarded\?/);
    const dialog = window.getByRole('dialog');
    expect(await dialog.innerText()).toMatch(/\(pid \d+\) wants the credential of profile guarded/);
    // The executable, on demand: a disclosure, closed until asked.
    const details = dialog.locator('details');
    expect(await details.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    await expect.poll(() => focused(window), { timeout: 3_000 }).toBe('button:Allow once');
    await expectCountingDown(window);
    await window.keyboard.press('Shift+Tab');
    expect(await focused(window)).toBe('summary');
    await window.keyboard.press('Enter');
    expect(await details.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
    expect(await details.innerText()).toMatch(/\/kubecred-shim|\/[^\s]+/);
    await lookAndAxe(window, 'approval-window');
    await window.keyboard.press('Tab');
    expect(await focused(window)).toBe('button:Allow once');
    await answerBy(window, 'Enter');
    const served = await asking;
    expect(served.code, served.stderr).toBe(0);
    expect(JSON.parse(served.stdout).status.token).toBe('token-behind-the-approval');
    await ended(window);

    // "Allow once" covers this process for one command; Lock all forgets that grant.
    expect((await cli(['lock'])).code).toBe(0);
    const denied = credential('guarded');
    const second = await promptWindow('approval');
    await answerBy(second, 'Escape');
    const refused = await denied;
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    await ended(second);
  });

  it('at 320x240 the widest prompt (an approval) still fits: nothing sideways, its answers in view', async () => {
    await afterTheRepeatWindow();
    expect((await cli(['lock'])).code).toBe(0);
    const denied = credential('guarded');
    const window = await promptWindow('approval');
    await window.setViewportSize({ width: 320, height: 240 });
    const inView = async (name: string) => {
      const box = (await window.getByRole('button', { name, exact: true }).boundingBox())!;
      return box.x >= 0 && box.y >= 0 && box.x + box.width <= 320 && box.y + box.height <= 240;
    };
    await expect.poll(() => inView('Allow once')).toBe(true);
    expect(await inView('Deny')).toBe(true);
    expect(await window.evaluate(() => document.documentElement.scrollWidth <= globalThis.innerWidth)).toBe(true);
    await window.screenshot({ path: path.join(SHOTS, 'prompt-approval-320x240.png') });
    await answerBy(window, 'Escape');
    expect((await denied).code).toBe(1);
    await ended(window);
  });

  it('a new store\'s passphrase: Enter moves to "Again", Enter again creates it; Escape cancels', async () => {
    const cancelled = credential('filed');
    const first = await promptWindow('passphrase');
    await expectDialog(first, /Choose a passphrase for encrypted-file/);
    expect(await focused(first)).toBe('input[name=passphrase]');
    await expectCountingDown(first);
    await answerBy(first, 'Escape');
    expect((await cancelled).code).toBe(1);
    await ended(first);

    await afterTheRepeatWindow();
    const asking = credential('filed');
    const window = await promptWindow('passphrase');
    expect(await focused(window)).toBe('input[name=passphrase]');
    await window.keyboard.type('correct horse staple');
    await window.keyboard.press('Enter');
    expect(await focused(window)).toBe('input[name=again]');
    await window.keyboard.type('correct horse stapl');
    expect(await window.getByRole('dialog').innerText()).toContain('The two passphrases differ');
    await lookAndAxe(window, 'passphrase-window');
    await window.keyboard.type('e');
    await answerBy(window, 'Enter');
    const result = await asking;
    // The store now exists and is open; it holds no token for the profile yet.
    expect(result.stderr).not.toMatch(/cancel|locked/i);
    await ended(window);
    expect((await cli(['secret', 'set', 'filed', 'token'], 'token-in-the-file')).code).toBe(0);
    const served = await credential('filed');
    expect(served.code, served.stderr).toBe(0);
    expect(JSON.parse(served.stdout).status.token).toBe('token-in-the-file');
  });

  it("Keystone's login form: the cursor starts in the first empty field, Enter moves to the next empty one, then logs in", async () => {
    const asking = credential('openstack');
    const window = await promptWindow('form');
    await expectDialog(window, /Log in to Keystone/);
    // A short title; where the login goes on its own line; remembering is a box to tick.
    expect(await window.locator('dialog h2, dialog h1').first().innerText()).toBe('Log in to Keystone');
    expect(await window.locator('.prompt-detail').innerText()).toMatch(/^at http:\/\/127\.0\.0\.1:\d+\/v3$/);
    expect(await window.locator('input[name="remember"]').getAttribute('type')).toBe('checkbox');
    expect(await focused(window)).toBe('input[name=username]');
    expect(await window.locator('input[name="userDomainName"]').inputValue()).toBe('Default');
    await expectCountingDown(window);
    await window.keyboard.type(ALICE.name);
    await window.keyboard.press('Enter');
    expect(await focused(window)).toBe('input[name=password]');
    await window.keyboard.type(ALICE.password);
    // At its window's size the whole form shows: every field and Log in, nothing to scroll to.
    const fits = await window.evaluate(() => {
      const button = [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'Log in');
      const last = [...document.querySelectorAll('dialog input')].at(-1);
      return {
        scrolls: document.scrollingElement!.scrollHeight > innerHeight + 1,
        button: (button?.getBoundingClientRect().bottom ?? Infinity) <= innerHeight,
        last: (last?.getBoundingClientRect().bottom ?? Infinity) <= innerHeight,
      };
    });
    expect(fits).toEqual({ scrolls: false, button: true, last: true });
    await lookAndAxe(window, 'keystone-window');
    await answerBy(window, 'Enter');
    const served = await asking;
    expect(served.code, served.stderr).toBe(0);
    expect(JSON.parse(served.stdout).status.token).toBe(keystone.tokens.at(-1));
    await ended(window);
  });

  it('the pages logged no errors', () => {
    expect(pageProblems).toEqual([]);
  });
});

// What a SoftHSM2 token cannot show (a last try) and what is rare with one kubectl (several
// questions at once, many programs on one approval), through the web UI on a stand-in broker.
describe('prompts a real token seldom shows: the last try, several questions at once', () => {
  let ui: WebUi;
  let chromium: TestChromium;
  let page: Page;
  const prompts = new PromptQueue({ timeoutMs: 30_000 });
  const problems: string[] = [];
  const ports: WebUiPorts = {
    profiles: async () => [{ name: 'prod', provider: 'static', state: 'idle', expiresAt: null, lastError: null }],
    interactions: () => [],
    onChange: () => () => undefined,
    login: async () => undefined,
    logout: async () => undefined,
    cancelLogin: async () => undefined,
    prompts,
    addProfile: async () => undefined,
    installProfile: async () => Promise.reject(new Error('this test installs nothing')),
    removeProfile: async () => undefined,
    profileConfig: async (name) => ({ name }),
    updateProfile: async () => undefined,
    storeSecret: async () => undefined,
    auditLog: async () => [],
    tokens: async () => [],
    updateToken: async () => undefined,
    preferences: async () => ({ profiles: [], tokens: [], startAtLogin: { enabled: false } }),
    setStartAtLogin: async () => undefined,
  };
  const focusedName = () =>
    page.evaluate(() => document.activeElement?.getAttribute('name') ?? document.activeElement?.textContent ?? '');

  beforeAll(async () => {
    await buildRenderer();
    ui = await startWebUi({ ports, rendererDir: path.join(REPO_ROOT, 'dist', 'renderer') });
    chromium = await launchChromium({ width: 800, height: 600 });
    page = chromium.page;
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(ui.url);
    await page.locator('[data-profile="prod"]').waitFor({ timeout: 10_000 });
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await ui?.close();
  });

  it('the last try is a red warning that says one more wrong PIN locks the token', async () => {
    const asked = prompts.askPin({
      token: 'yubikey',
      tokenLabel: 'YubiKey PIV #1234',
      flags: { countLow: true, finalTry: true, locked: false },
      caller: 'kubectl (pid 4242)',
      profile: 'prod',
    });
    const dialog = page.getByRole('dialog', { name: 'PIN for YubiKey PIV #1234' });
    await dialog.waitFor();
    const warning = dialog.getByRole('alert');
    expect(await warning.innerText()).toMatch(/^1 try left\s+Last try: one more wrong PIN locks this token\./);
    expect(await warning.getAttribute('class')).toContain('danger');
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: path.join(SHOTS, `prompt-pin-last-try-${colorScheme}.png`) });
      expect(await seriousAxeViolations(page), colorScheme).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.keyboard.press('Escape');
    await expect(asked).resolves.toBeNull();
    await dialog.waitFor({ state: 'detached' });
  });

  it('two questions at once: the newer on top has the keyboard; once answered, the other has it', async () => {
    const pin = prompts.askPin({
      token: 'yubikey',
      tokenLabel: 'YubiKey PIV #1234',
      flags: { countLow: false, finalTry: false, locked: false },
      caller: 'kubectl (pid 4242)',
      profile: 'prod',
    });
    await page.getByRole('dialog', { name: /PIN for/ }).waitFor();
    expect(await focusedName()).toBe('pin');
    const callers = [
      {
        pid: 4243,
        name: 'k9s',
        path: '/home/ada/.local/share/aquaproj-aqua/pkgs/github_release/github.com/derailed/k9s/v0.50.6/k9s_Linux_amd64.tar.gz/k9s',
      },
      { pid: 4244, name: 'kubectl', path: '/usr/local/bin/kubectl' },
    ];
    const approvals = callers.map((caller) =>
      prompts.askApproval({ profile: 'prod', cluster: 'https://prod.example:6443', caller }),
    );
    const approval = page.getByRole('dialog', { name: 'Allow access to prod?' });
    await approval.waitFor();
    await expect.poll(() => approval.innerText()).toContain('kubectl (pid 4244)');
    // The PIN under it is hidden: the approval on top says something else waits.
    expect(await approval.innerText()).toContain('One more question waits after this one.');
    expect(await page.getByRole('dialog', { name: /PIN for/ }).innerText()).not.toContain('waits after this one');
    await expect.poll(focusedName, { timeout: 3_000 }).toBe('Allow once');
    await approval.locator('summary').click();
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: path.join(SHOTS, `prompt-two-at-once-${colorScheme}.png`) });
      expect(await seriousAxeViolations(page), colorScheme).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    // Typing goes to the approval on top, not to the PIN under it.
    await page.keyboard.press('Escape');
    await expect(Promise.all(approvals)).resolves.toEqual([{ allow: false }, { allow: false }]);
    await approval.waitFor({ state: 'detached' });
    await expect.poll(focusedName).toBe('pin');
    await page.keyboard.type('123456');
    await page.keyboard.press('Enter');
    await expect(pin).resolves.toBe('123456');
    expect(problems).toEqual([]);
  });
});
