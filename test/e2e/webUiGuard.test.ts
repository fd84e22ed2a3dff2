import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  const { cli } = callersFor(() => home.dir);
  const panel = () => page.locator('section.guard-panel');
  /** Light and dark at 1280x800, each with no serious or critical axe violation. */
  const shootAndCheck = async (name: string) => {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: path.join(SHOTS, `guard-${name}-${colorScheme}.png`) });
      expect(await seriousAxeViolations(page), `${name} in ${colorScheme}`).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  };
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
    const until = /\((\d{4}-\d\d-\d\dT[^)]+)\)/.exec(said.stdout)?.[1];
    expect(said.stdout, 'kubecred guard prod').toMatch(/^guard of prod: lifted until /);
    const left = Date.parse(until!) - Date.now();
    expect(left).toBeGreaterThan(14 * 60_000);
    expect(left).toBeLessThanOrEqual(15 * 60_000);
    const state = await pageState();
    expect(state.profiles.find((p) => p.name === 'prod')?.guard?.offUntil).toBe(until);
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
      .toMatch(/guard put back[\s\S]*guard lifted until/);
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
