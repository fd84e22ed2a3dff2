import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { buildRenderer, launchChromium, type TestChromium } from '../support/chromium.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { REPO_ROOT, assertBuilt } from '../support/repo.js';
import { promptPageRoute } from '../../src/shared/api/pageRoutes.js';
import { seriousAxeViolations } from '../support/axe.js';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const PIN = '135790';
const SHOTS = process.env.KUBECRED_SHOTS ?? path.join(REPO_ROOT, 'test-results', 'screenshots');

// Issue 14, item 2: a prompt window shows its one question on a route the renderer serves
// (#prompt=<id>), and ends once the question is answered, there or anywhere else.
describe('a prompt window of a real broker', () => {
  let home: TempHome;
  let hsm: SoftHsm;
  let broker: TestBroker;
  let chromium: TestChromium;
  let main: Page;
  let browserStandIn: RecordingBrowser;
  const { cli, credential } = callersFor(
    () => home.dir,
    () => ({ SOFTHSM2_CONF: hsm.conf }),
  );

  const pendingPromptId = async (): Promise<string> => {
    await main.locator('form[aria-label="PIN for hsm"]').waitFor({ timeout: 15_000 });
    return main.evaluate(async () => {
      const response = await fetch('/api/state', {
        headers: { authorization: `Bearer ${sessionStorage.getItem('kubecred-session')}` },
      });
      return ((await response.json()) as { prompts: Array<{ id: string }> }).prompts[0]!.id;
    });
  };
  /** The window closes itself (window.close(); a browser may refuse that, and then it says so). */
  const ended = async (page: Page, said: string): Promise<'closed' | 'said'> => {
    try {
      await page.getByRole('status').filter({ hasText: said }).waitFor({ timeout: 10_000 });
      return 'said';
    } catch (error) {
      if (page.isClosed()) return 'closed';
      throw error;
    }
  };
  /** A window opened at the prompt's route, with a one-time link of its own. */
  const promptWindow = async (id: string): Promise<Page> => {
    const link = (await cli(['ui', '--print'])).stdout.trim();
    const page = await chromium.page.context().newPage();
    await page.goto(`${link}&prompt=${encodeURIComponent(id)}`);
    return page;
  };

  beforeAll(async () => {
    assertBuilt({ shim: true });
    await buildRenderer();
    home = await makeTempHome();
    hsm = await createSoftHsm({
      dir: path.join(home.dir, 'hsm'),
      label: 'kc-prompt-window',
      pin: PIN,
      soPin: '24681357',
    });
    await writeConfig(
      home.dir,
      `tokens:\n  - { name: hsm, module: ${hsm.module}, label: kc-prompt-window }\nprofiles:\n  - { name: onhsm-window, provider: static, secretStore: "token:hsm" }\n  - { name: guarded-window, provider: static, approval: always }\n`,
    );
    browserStandIn = await recordingBrowser(home.dir);
    broker = await startTestBroker(home.dir, { SOFTHSM2_CONF: hsm.conf, KUBECRED_BROWSER: browserStandIn.command }, [
      '--ui',
    ]);
    expect((await cli(['token', 'login', 'hsm'], PIN)).code).toBe(0);
    expect((await cli(['secret', 'set', 'onhsm-window', 'token'], 'token-behind-the-pin')).code).toBe(0);
    expect((await cli(['secret', 'set', 'guarded-window', 'token'], 'token-behind-the-approval')).code).toBe(0);
    expect((await cli(['lock'])).code).toBe(0);
    chromium = await launchChromium({ width: 480, height: 360 });
    main = chromium.page;
    await browserStandIn.openIn(main, 0, 10_000);
    await main.locator('[data-profile="onhsm-window"]').waitFor({ timeout: 10_000 });
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await broker?.stop();
    hsm?.dispose();
    await home?.cleanup();
  });

  it('shows only its question; answered there, kubectl gets the credential and the window says so', async () => {
    const asking = credential('onhsm-window');
    const window = await promptWindow(await pendingPromptId());
    const form = window.locator('form[aria-label="PIN for hsm"]');
    await form.waitFor({ timeout: 10_000 });
    expect(await window.locator('[data-profile]').count()).toBe(0);
    expect(await window.evaluate(() => location.hash)).toMatch(/^#prompt=/);
    // Issue 16: the question is a dialog named by its heading, the cursor waits in the PIN, and it counts down.
    expect(await window.getByRole('dialog', { name: 'PIN for kc-prompt-window' }).count()).toBe(1);
    expect(await window.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('pin');
    expect(await window.getByRole('timer').innerText()).toMatch(/Times out in [12]:\d\d/);
    expect(await seriousAxeViolations(window)).toEqual([]);
    await window.screenshot({ path: path.join(SHOTS, 'prompt-window-pin.png') });
    await form.locator('input[name="pin"]').fill(PIN);
    await form.getByRole('button', { name: 'Unlock' }).click();
    const served = await asking;
    expect(served.code, served.stderr).toBe(0);
    expect(await ended(window, 'Answered')).toMatch(/closed|said/);
    if (!window.isClosed()) await window.close();
  });

  it('ends when the question is answered elsewhere (here: in the main window)', async () => {
    expect((await cli(['lock'])).code).toBe(0);
    const asking = credential('onhsm-window');
    const window = await promptWindow(await pendingPromptId());
    await window.locator('form[aria-label="PIN for hsm"]').waitFor({ timeout: 10_000 });
    const form = main.locator('form[aria-label="PIN for hsm"]');
    await form.locator('input[name="pin"]').fill(PIN);
    await form.getByRole('button', { name: 'Unlock' }).click();
    expect((await asking).code).toBe(0);
    expect(await ended(window, 'answered elsewhere')).toMatch(/closed|said/);
  });

  it('an approval asked by a real shim request: its window names the program, and Allow once serves it', async () => {
    const asking = credential('guarded-window');
    await main.locator('section[aria-label="approval for guarded-window"]').waitFor({ timeout: 15_000 });
    const id = await main.evaluate(async () => {
      const response = await fetch('/api/state', {
        headers: { authorization: `Bearer ${sessionStorage.getItem('kubecred-session')}` },
      });
      return ((await response.json()) as { prompts: Array<{ id: string; kind: string }> }).prompts.find(
        (p) => p.kind === 'approval',
      )!.id;
    });
    // Opened from the main window (its session travels with window.open): a link the asking
    // program fetched itself could not approve its own request (security review B3).
    const [popup] = await Promise.all([
      main.waitForEvent('popup'),
      main.evaluate((route) => void window.open(route, '_blank', 'popup,width=480,height=360'), promptPageRoute(id)),
    ]);
    const prompt = popup.locator('section[aria-label="approval for guarded-window"]');
    await prompt.waitFor({ timeout: 10_000 });
    expect(await prompt.innerText()).toMatch(/\(pid \d+\)|node/);
    expect(await popup.getByRole('timer').innerText()).toMatch(/Times out in [12]:\d\d/);
    expect(await seriousAxeViolations(popup)).toEqual([]);
    await popup.screenshot({ path: path.join(SHOTS, 'prompt-window-approval.png') });
    await prompt.locator('button', { hasText: 'Allow once' }).click();
    const served = await asking;
    expect(served.code, served.stderr).toBe(0);
    expect(JSON.parse(served.stdout).status.token).toBe('token-behind-the-approval');
    expect(await ended(popup, 'Answered')).toMatch(/closed|said/);
  });
});
