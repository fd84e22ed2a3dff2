import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askToLiftGuard } from '../../src/main/broker/guardLiftQuestion.js';
import { PromptQueue } from '../../src/main/ui/promptQueue.js';
import { startWebUi } from '../../src/main/webui/startWebUi.js';
import type { WebUi } from '../../src/main/webui/webUiPorts.js';
import type { AuditEntry } from '../../src/shared/api/webUiApi.js';
import type { ProfileSummary } from '../../src/shared/api/status.js';
import { seriousAxeViolations } from '../support/axe.js';
import { bareWebUiPorts } from '../support/bareWebUiPorts.js';
import { buildRenderer, launchChromium, type TestChromium } from '../support/chromium.js';
import { REPO_ROOT } from '../support/repo.js';

const SHOTS = path.join(REPO_ROOT, 'test-results', 'screenshots');

// Issue 41 item 2, security review 4 D5: a program that is not the person asks to lift a guard;
// the window asks the person, naming the program and how long, and the Activity and the
// profile's page say who lifted it.
describe('a lift asked by a program, in the window', () => {
  let ui: WebUi;
  let chromium: TestChromium;
  let page: Page;
  const prompts = new PromptQueue({ timeoutMs: 120_000 });
  const curl = { pid: 4242, name: 'curl', path: '/usr/bin/curl' };
  const until = new Date(Date.now() + 12 * 3_600_000).toISOString();
  let lifted = false;
  const prod = (): ProfileSummary => ({
    name: 'prod',
    provider: 'static',
    state: 'ready',
    expiresAt: null,
    lastError: null,
    proxyPort: 47001,
    guard: lifted ? { rules: 1, offUntil: until, liftedBy: 'curl (pid 4242)' } : { rules: 1, offUntil: null },
  });
  const trail: AuditEntry[] = [
    {
      time: new Date().toISOString(),
      profile: 'prod',
      caller: { ...curl, client: 'socket' },
      outcome: 'served',
      guard: { decision: 'lifted', until },
    },
    {
      time: new Date(Date.now() - 60_000).toISOString(),
      profile: 'prod',
      caller: { ...curl, client: 'socket' },
      outcome: 'denied',
      error: 'lifting the guard of "prod" for curl (pid 4242) was denied; the guard holds',
      guard: { decision: 'lift-refused' },
    },
  ];

  beforeAll(async () => {
    await buildRenderer();
    ui = await startWebUi({
      ports: {
        ...bareWebUiPorts(),
        profiles: async () => [prod()],
        prompts,
        tokens: async () => [],
        auditLog: async () => (lifted ? trail : []),
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

  it('names the program and how long, offers Allow once or Deny, and a Deny holds', async () => {
    const asked = askToLiftGuard(prompts, { profile: 'prod', ms: 12 * 3_600_000, caller: curl });
    const prompt = page.locator('section[aria-label="approval for prod"]');
    await prompt.waitFor({ timeout: 10_000 });
    const text = await prompt.innerText();
    expect(text).toMatch(/curl \(pid 4242\)\s+wants to lift the guard for 12 h through profile prod/);
    expect(await prompt.getByRole('button', { name: 'Allow for' }).count()).toBe(0);
    await expect.poll(() => prompt.getByRole('button', { name: 'Allow once' }).isEnabled()).toBe(true);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: path.join(SHOTS, `guard-lift-question-${colorScheme}.png`) });
      expect(await seriousAxeViolations(page), colorScheme).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await prompt.getByRole('button', { name: 'Deny' }).click();
    expect(await asked).toEqual({ allow: false });
  });

  it("the profile's page and its Activity say who lifted it", async () => {
    lifted = true;
    await page.reload();
    await page.locator('[data-profile="prod"] a.profile-name').click();
    const words = page.locator('section.guard-panel .guard-words');
    await expect
      .poll(() => words.innerText(), { timeout: 10_000 })
      .toMatch(/^guard lifted by curl \(pid 4242\), back in/);
    const activity = page.locator('table[aria-label="recent activity of prod"]');
    await expect
      .poll(() => activity.innerText(), { timeout: 10_000 })
      .toMatch(/guard lifted by curl \(pid 4242\) until[\s\S]*guard not lifted for curl \(pid 4242\): not allowed/);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await activity.scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SHOTS, `guard-lifted-by-${colorScheme}.png`) });
      expect(await seriousAxeViolations(page), colorScheme).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  });
});
