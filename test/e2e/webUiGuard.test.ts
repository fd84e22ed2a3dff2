import { readFile } from 'node:fs/promises';
import { formatLocalTime } from '../../src/shared/localTime.js';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { freePort } from '../../src/main/platform/freePort.js';
import { PromptQueue } from '../../src/main/ui/promptQueue.js';
import { startWebUi } from '../../src/main/webui/startWebUi.js';
import type { WebUi } from '../../src/main/webui/webUiPorts.js';
import type { ProfileSummary } from '../../src/shared/api/status.js';
import { bareWebUiPorts } from '../support/bareWebUiPorts.js';
import { promptPageRoute } from '../../src/shared/api/pageRoutes.js';
import { promptWindowHeight } from '../../src/main/electron/windowOptions.js';
import { seriousAxeViolations } from '../support/axe.js';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { buildRenderer, launchChromium, type TestChromium } from '../support/chromium.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { REPO_ROOT, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const SHOTS = path.join(REPO_ROOT, 'test-results', 'screenshots');
const WIDE = { width: 1280, height: 800 };
const SMALL = { width: 800, height: 600 };

// Issue 33, "editable in the window": a proxied profile's guard is seen, lifted for a while and
// put back from its page in a real browser, and the broker (kubecred guard, the page's state)
// says the same. No cluster is needed: the page shows the guard whether or not one answers.
describe("a proxied profile's guard in the window of a real broker (kubecred daemon --ui)", () => {
  let home: TempHome;
  let broker: TestBroker;
  let chromium: TestChromium;
  let page: Page;
  let browserStandIn: RecordingBrowser;
  let port: number;
  let stagingPort: number;
  const { cli } = callersFor(() => home.dir);
  const panel = () => page.locator('section.guard-panel');
  /**
   * Light and dark at 1280x800 (and 800x600 with `small`, the name ending in -800), each with no
   * serious or critical axe violation; `show` is scrolled into view first.
   */
  const shootAndCheck = async (name: string, { small = false, show }: { small?: boolean; show?: Locator } = {}) => {
    for (const size of small ? [WIDE, SMALL] : [WIDE]) {
      await page.setViewportSize(size);
      await show?.scrollIntoViewIfNeeded();
      const shot = size === WIDE ? name : `${name}-${size.width}`;
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        await page.screenshot({ path: path.join(SHOTS, `guard-${shot}-${colorScheme}.png`) });
        expect(await seriousAxeViolations(page), `${shot} in ${colorScheme}`).toEqual([]);
      }
    }
    await page.setViewportSize(WIDE);
    await page.emulateMedia({ colorScheme: 'light' });
  };
  /** config.yaml as the broker reads it. */
  const configText = () => readFile(path.join(home.dir, 'config.yaml'), 'utf8');
  const guardInConfig = async (profile: string) =>
    (parse(await configText()) as { profiles: Array<{ name: string; guard?: unknown }> }).profiles.find(
      (p) => p.name === profile,
    )?.guard;
  /** The element that has the keyboard's focus: its tag and its words. */
  const focused = () =>
    page.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.textContent}`);
  /** The page's own view of the broker: GET /api/state with its session, as the page reads it. */
  const pageState = () =>
    page.evaluate(async () => {
      const session = sessionStorage.getItem('kubecred-session');
      const answer = await fetch('/api/state', { headers: { authorization: `Bearer ${session}` } });
      return (await answer.json()) as { profiles: Array<{ name: string; guard?: { offUntil: string | null } }> };
    });

  beforeAll(async () => {
    assertBuilt({ shim: true });
    await buildRenderer();
    home = await makeTempHome();
    port = await freePort();
    stagingPort = await freePort();
    await writeConfig(
      home.dir,
      [
        'profiles:',
        '  - name: prod',
        '    provider: static',
        '    description: the production cluster, read-only unless lifted',
        `    proxy: { port: ${port}, server: "https://127.0.0.1:1" }`,
        '    guard: read-only',
        '  - name: lab',
        '    provider: static',
        '  - name: staging',
        '    provider: static',
        `    proxy: { port: ${stagingPort}, server: "https://127.0.0.1:1" }`,
        '',
      ].join('\n'),
    );
    browserStandIn = await recordingBrowser(home.dir);
    broker = await startTestBroker(home.dir, { KUBECRED_BROWSER: browserStandIn.command }, ['--ui']);
    chromium = await launchChromium({ width: 1280, height: 800 });
    page = chromium.page;
  }, 180_000);

  afterAll(async () => {
    await chromium?.close();
    await broker?.stop();
    await home?.cleanup();
  });

  it('tags the guarded profile in the list, on its one line', async () => {
    await browserStandIn.openIn(page, 0, 10_000);
    const row = page.locator('[data-profile="prod"]');
    await row.waitFor({ timeout: 10_000 });
    const tag = row.locator('.guard-tag');
    expect(await tag.innerText()).toBe('guarded');
    expect(await tag.getAttribute('title')).toBe('guard on (1 rule)');
    expect(await page.locator('[data-profile="lab"] .guard-tag').count()).toBe(0);
    // The tag sits on the row's one line, beside the badge.
    const [rowHead, tagBox] = await Promise.all([row.locator('.profile-head').boundingBox(), tag.boundingBox()]);
    expect(tagBox!.height).toBeLessThan(30);
    expect(rowHead!.height).toBeLessThan(40);
    await page.screenshot({ path: path.join(SHOTS, 'guard-list-light.png') });
  });

  it("shows the guard's state, its rule in words and the proxy's port on the profile's page", async () => {
    await page.locator('[data-profile="prod"] a.profile-name').click();
    await panel().waitFor({ timeout: 10_000 });
    expect(await panel().locator('.guard-words').innerText()).toBe('guard on (1 rule)');
    // The rules come from config.yaml, which the page reads as it opens.
    await expect
      .poll(() => panel().locator('ul[aria-label="guard rules"] li').allInnerTexts(), { timeout: 10_000 })
      .toEqual(['read-only: every write refused, dry runs allowed']);
    expect(await page.locator('[data-fact="Exec proxy"]').innerText()).toBe(
      `kubectl → https://127.0.0.1:${port} → https://127.0.0.1:1`,
    );
    // A proxied profile is not offered the proxy again.
    expect(await page.locator('.proxy-offer').count()).toBe(0);
    await shootAndCheck('on');
  });

  it('lifts it for the minutes chosen, and the broker says the same', async () => {
    await panel().locator('select').selectOption('15');
    await panel().getByRole('button', { name: 'Lift for' }).click();
    await expect.poll(() => panel().getAttribute('data-guard-panel'), { timeout: 10_000 }).toBe('lifted');
    expect(await panel().locator('.guard-words').innerText()).toMatch(/^guard lifted, back in 1[45] min$/);
    expect(await panel().innerText()).toMatch(/Lifted until \d\d:\d\d:\d\d: requests through this profile/);

    const said = await cli(['guard', 'prod']);
    expect(said.code, said.stderr).toBe(0);
    const state = await pageState();
    const until = state.profiles.find((p) => p.name === 'prod')?.guard?.offUntil;
    const left = Date.parse(until!) - Date.now();
    expect(left).toBeGreaterThan(14 * 60_000);
    expect(left).toBeLessThanOrEqual(15 * 60_000);
    // The CLI names the same moment, in the local time a person reads.
    expect(said.stdout, 'kubecred guard prod').toMatch(
      new RegExp(`^guard of prod: lifted until ${formatLocalTime(Date.parse(until!), Date.now())};`),
    );
    await shootAndCheck('lifted');

    // The list says so too, and comes back to the page.
    await page.getByRole('link', { name: '← All profiles' }).click();
    await expect.poll(() => page.locator('[data-profile="prod"] .guard-tag').innerText()).toBe('guard lifted');
    await page.screenshot({ path: path.join(SHOTS, 'guard-list-lifted-light.png') });
    await page.locator('[data-profile="prod"] a.profile-name').click();
    await panel().waitFor({ timeout: 10_000 });
  });

  it('puts it back now, and the broker says the same', async () => {
    await panel().getByRole('button', { name: 'Put back now' }).click();
    await expect.poll(() => panel().getAttribute('data-guard-panel'), { timeout: 10_000 }).toBe('on');
    expect(await panel().locator('.guard-words').innerText()).toBe('guard on (1 rule)');
    const said = await cli(['guard', 'prod']);
    expect(said.stdout).toMatch(/^guard of prod: on \(1 rule\)/);
    expect((await pageState()).profiles.find((p) => p.name === 'prod')?.guard?.offUntil).toBeNull();
    // Both changes are in the profile's activity, in words.
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.locator('table[aria-label="recent activity of prod"]').innerText();
        },
        { timeout: 10_000 },
      )
      // Who changed it, as the broker knew them (security review 4, D5): this page, the broker's own.
      .toMatch(/guard put back by a Kubecred page[\s\S]*guard lifted by a Kubecred page \(link of [^)]+\) until/);
    // A change of the guard is no program's call.
    expect(await page.locator('.detail-facts').innerText()).toMatch(/Last caller\s+nobody yet/);
    await shootAndCheck('back');
  });

  it('offers the proxy to a profile without one, in words that claim no token; no guard there to lift', async () => {
    await page.goto(new URL('#/profile/lab', page.url()).toString());
    const offer = page.locator('.proxy-offer');
    await offer.waitFor({ timeout: 10_000 });
    const words = await offer.innerText();
    expect(words).toContain("the listener shows the cluster this profile's credential");
    expect(words).toContain('a copied kubeconfig grants nothing');
    expect(words).not.toMatch(/token/);
    expect(await page.locator('section.guard-panel').count()).toBe(0);
    // No guard to lift: the broker's refusal, in its words, as the page would show it.
    const refused = await cli(['guard', 'lab', 'off', '--for', '5m']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/profile "lab" has no guard/);
    await page.screenshot({ path: path.join(SHOTS, 'guard-proxy-offer-light.png') });
  });

  // The rules themselves, edited in the window and written to config.yaml.
  const offer = () => page.locator('section.guard-offer');
  const editor = () => page.locator('form.guard-editor');
  const rule = (index: number) => editor().locator(`[data-guard-rule="${index}"]`);
  const ruleLines = () => panel().locator('ul[aria-label="guard rules"] li').allInnerTexts();

  it('offers a proxied profile without a guard one, and adds it by preset', async () => {
    await page.goto(new URL('#/profile/staging', page.url()).toString());
    await offer().waitFor({ timeout: 10_000 });
    expect(await panel().count()).toBe(0);
    expect(await offer().getByRole('button').allInnerTexts()).toEqual(['Read-only', 'Ask before deletes', 'Custom…']);
    await shootAndCheck('add', { small: true, show: offer() });

    await offer().getByRole('button', { name: 'Ask before deletes' }).click();
    await panel().waitFor({ timeout: 10_000 });
    await expect
      .poll(ruleLines, { timeout: 10_000 })
      .toEqual(['confirm: delete, deletecollection on anything (rule “deletes”)']);
    expect(await offer().count()).toBe(0);
    // The new card takes the focus of the one that went.
    expect(await focused()).toBe('H2 Guard');
    expect(await guardInConfig('staging')).toEqual({
      rules: [{ name: 'deletes', action: 'confirm', verbs: ['delete', 'deletecollection'] }],
    });
    expect((await pageState()).profiles.find((p) => p.name === 'staging')?.guard).toEqual({
      rules: 1,
      offUntil: null,
    });
    // Nothing else of the file changed: prod keeps its short form.
    expect(await guardInConfig('prod')).toBe('read-only');
  });

  it('edits the rules with the keyboard: a deny rule on secrets in namespace prod, saved with Enter', async () => {
    await panel().getByRole('button', { name: 'Edit rules…' }).press('Enter');
    await editor().waitFor({ timeout: 10_000 });
    // The editor opens on the first rule, as it is in config.yaml.
    expect(await focused()).toMatch(/^SELECT /);
    expect(await rule(0).getByLabel('Action').inputValue()).toBe('confirm');
    expect(await rule(0).getByLabel('Name (optional)').inputValue()).toBe('deletes');
    expect(await rule(0).getByRole('checkbox', { checked: true }).count()).toBe(2);
    expect(await rule(0).getByRole('button', { name: 'Remove rule 1' }).isDisabled()).toBe(true);

    await editor().getByRole('button', { name: 'Add rule' }).press('Enter');
    await rule(1).waitFor();
    // The new rule's action takes the focus: the keyboard goes on from there.
    expect(await focused()).toMatch(/^SELECT /);
    // Down twice, from read-only: confirm, then deny.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await rule(1).getByLabel('Action').inputValue()).toBe('deny');
    await page.keyboard.press('Tab');
    await page.keyboard.type('no secrets in prod');
    await rule(1).getByLabel('Resources').fill('secrets');
    await rule(1).getByLabel('Namespaces').fill('prod');
    await shootAndCheck('edit', { small: true, show: editor() });
    await rule(1).getByLabel('Namespaces').press('Enter');

    await editor().waitFor({ state: 'detached', timeout: 10_000 });
    await expect
      .poll(ruleLines, { timeout: 10_000 })
      .toEqual([
        'confirm: delete, deletecollection on anything (rule “deletes”)',
        'deny: secrets in namespace prod (rule “no secrets in prod”)',
      ]);
    expect(await focused()).toBe('BUTTON Edit rules…');
    expect(await guardInConfig('staging')).toEqual({
      rules: [
        { name: 'deletes', action: 'confirm', verbs: ['delete', 'deletecollection'] },
        { name: 'no secrets in prod', action: 'deny', resources: ['secrets'], namespaces: ['prod'] },
      ],
    });
    await expect
      .poll(async () => (await pageState()).profiles.find((p) => p.name === 'staging')?.guard, { timeout: 10_000 })
      .toMatchObject({ rules: 2 });
    await shootAndCheck('edited', { show: panel() });
  });

  it("refuses an invalid entry under its field, in config.yaml's words, and writes nothing", async () => {
    const before = await configText();
    await panel().getByRole('button', { name: 'Edit rules…' }).click();
    await rule(1).getByLabel('Resources').fill('secrets, Pods!');
    await editor().getByRole('button', { name: 'Save' }).click();
    const refusal = rule(1).locator('[data-error-for="rules[1].resources"]');
    await refusal.waitFor({ timeout: 10_000 });
    // The schema's words about the entry refused, not the whole profile's.
    expect(await refusal.innerText()).toBe(
      '“Pods!”: a resource looks like pods, pods/exec, pods/*, deployments.apps or *',
    );
    expect(await rule(1).getByLabel('Resources').getAttribute('aria-invalid')).toBe('true');
    // The field refused has the focus, to be put right at once.
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).value)).toBe('secrets, Pods!');
    expect(await configText()).toBe(before);
    await shootAndCheck('refused', { small: true, show: refusal });

    // Escape leaves the editor with nothing written; the rules are as they were.
    await rule(1).getByLabel('Resources').press('Escape');
    await editor().waitFor({ state: 'detached' });
    expect(await ruleLines()).toHaveLength(2);
    expect(await configText()).toBe(before);
  });

  it('removes the guard after asking, and offers one again', async () => {
    await panel().getByRole('button', { name: 'Remove the guard…' }).click();
    const ask = panel().getByRole('group', { name: 'remove the guard of staging?' });
    expect(await ask.innerText()).toMatch(/reach the cluster unchecked/);
    await shootAndCheck('remove', { show: ask });
    await ask.getByRole('button', { name: 'Remove the guard' }).click();
    await offer().waitFor({ timeout: 10_000 });
    expect(await panel().count()).toBe(0);
    expect(await focused()).toBe('H2 Add a guard');
    expect(await guardInConfig('staging')).toBeUndefined();
    expect((await pageState()).profiles.find((p) => p.name === 'staging')?.guard).toBeUndefined();
    expect(await guardInConfig('prod')).toBe('read-only');
  });

  it('refuses a guard for a profile that does not go through the proxy, saying what to do', async () => {
    const before = await configText();
    const answer = await page.evaluate(async () => {
      const response = await fetch('/api/profiles/lab/guard-rules', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${sessionStorage.getItem('kubecred-session')}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ rules: [{ action: 'read-only' }] }),
      });
      return { status: response.status, body: (await response.json()) as { error: { message: string; hint: string } } };
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toMatch(/profile "lab" does not go through the exec proxy/);
    expect(answer.body.error.hint).toMatch(/^turn the exec proxy on first/);
    expect(await configText()).toBe(before);
    // Its page offers the proxy, not a guard.
    await page.goto(new URL('#/profile/lab', page.url()).toString());
    await page.locator('.proxy-offer').waitFor({ timeout: 10_000 });
    expect(await offer().count()).toBe(0);
  });
});

// A confirm rule asks about one request: the prompt names it, and offers Allow once or Deny only.
describe("a guard's question in the window", () => {
  let ui: WebUi;
  let chromium: TestChromium;
  let page: Page;
  const prompts = new PromptQueue({ timeoutMs: 120_000 });
  const prod: ProfileSummary = {
    name: 'prod',
    provider: 'oidc',
    state: 'ready',
    expiresAt: null,
    lastError: null,
    proxyPort: 47001,
    guard: { rules: 2, offUntil: null },
  };

  beforeAll(async () => {
    await buildRenderer();
    ui = await startWebUi({
      ports: {
        ...bareWebUiPorts(),
        profiles: async () => [prod],
        prompts,
        tokens: async () => [],
        auditLog: async () => [],
      },
    });
    chromium = await launchChromium({ width: 1280, height: 800 });
    page = chromium.page;
    await page.goto(ui.url);
    await page.locator('[data-profile="prod"]').waitFor({ timeout: 10_000 });
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await ui?.close();
  });

  it('names the program and the one request, and allows that request once', async () => {
    const asked = prompts.askApproval({
      profile: 'prod',
      caller: { pid: 4242, name: 'kubectl', path: '/usr/local/bin/kubectl' },
      guard: { rule: 'deletes', action: 'delete pods "web" in namespace "default"' },
    });
    const prompt = page.locator('section[aria-label="approval for prod"]');
    await prompt.waitFor({ timeout: 10_000 });
    const text = await prompt.innerText();
    expect(text).toMatch(/Allow this request to prod\?/);
    expect(text).toMatch(
      /kubectl \(pid 4242\)\s+wants to delete pods "web" in namespace "default" through profile prod/,
    );
    expect(text).toMatch(/Guard rule\s+“deletes” asks before requests like this one/);
    expect(await page.locator('[role="alert"], .problem').count()).toBe(0);
    expect(await prompt.getByRole('button', { name: 'Allow for' }).count()).toBe(0);
    await expect.poll(() => prompt.getByRole('button', { name: 'Allow once' }).isEnabled()).toBe(true);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: path.join(SHOTS, `guard-question-${colorScheme}.png`) });
      expect(await seriousAxeViolations(page), colorScheme).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });

    // The tray app's prompt window for it: the request, the rule and both buttons fit, unscrolled.
    const id = await page.evaluate(async () => {
      const response = await fetch('/api/state', {
        headers: { authorization: `Bearer ${sessionStorage.getItem('kubecred-session')}` },
      });
      return ((await response.json()) as { prompts: Array<{ id: string }> }).prompts[0]!.id;
    });
    const [popup] = await Promise.all([
      page.waitForEvent('popup'),
      page.evaluate((route) => void window.open(route, '_blank', 'popup,width=440,height=340'), promptPageRoute(id)),
    ]);
    await popup.setViewportSize({ width: 440, height: promptWindowHeight({ kind: 'approval' }) });
    const inWindow = popup.locator('section[aria-label="approval for prod"]');
    await inWindow.waitFor({ timeout: 10_000 });
    await expect.poll(() => inWindow.getByRole('button', { name: 'Allow once' }).isEnabled()).toBe(true);
    for (const name of ['Allow once', 'Deny'])
      expect(
        await inWindow.getByRole('button', { name }).evaluate((b) => b.getBoundingClientRect().bottom),
      ).toBeLessThanOrEqual(promptWindowHeight({ kind: 'approval' }));
    expect(await popup.evaluate(() => document.scrollingElement!.scrollHeight <= window.innerHeight)).toBe(true);
    await popup.screenshot({ path: path.join(SHOTS, 'guard-question-window.png') });
    await inWindow.getByRole('button', { name: 'Allow once' }).click();
    expect(await asked).toEqual({ allow: true });
  });
});
