import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { buildRenderer, launchChromium, type TestChromium } from '../support/chromium.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { REPO_ROOT, assertBuilt } from '../support/repo.js';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const PIN = '246810';
const SHOTS = process.env.KUBECRED_SHOTS ?? path.join(REPO_ROOT, 'test-results', 'screenshots');

// New-user finding 7: after a wrong PIN typed in the page, the prompt vanished and the page said nothing.
describe('a wrong PIN typed in the web UI of a real broker', () => {
  let home: TempHome;
  let hsm: SoftHsm;
  let broker: TestBroker;
  let chromium: TestChromium;
  let page: Page;
  let browserStandIn: RecordingBrowser;
  const { credential } = callersFor(
    () => home.dir,
    () => ({ SOFTHSM2_CONF: hsm.conf }),
  );

  beforeAll(async () => {
    assertBuilt({ shim: true });
    await buildRenderer();
    home = await makeTempHome();
    hsm = await createSoftHsm({ dir: path.join(home.dir, 'hsm'), label: 'kc-wrong-pin', pin: PIN, soPin: '99887766' });
    await writeConfig(
      home.dir,
      `tokens:\n  - { name: hsm, module: ${hsm.module}, label: kc-wrong-pin }\nprofiles:\n  - { name: onhsm, provider: static, secretStore: "token:hsm" }\n`,
    );
    browserStandIn = await recordingBrowser(home.dir);
    broker = await startTestBroker(home.dir, { SOFTHSM2_CONF: hsm.conf, KUBECRED_BROWSER: browserStandIn.command }, [
      '--ui',
    ]);
    chromium = await launchChromium({ width: 800, height: 600 });
    page = chromium.page;
    await browserStandIn.openIn(page, 0, 10_000);
    await page.locator('[data-profile="onhsm"]').waitFor({ timeout: 10_000 });
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await broker?.stop();
    hsm?.dispose();
    await home?.cleanup();
  });

  it('the page says the PIN was wrong where it was typed, with the tries left, and the profile says so too', async () => {
    const asking = credential('onhsm');
    const form = page.locator('form[aria-label="PIN for hsm"]');
    await form.waitFor({ timeout: 15_000 });
    // Finding 19: the prompt names the program (from the kernel's view of the caller) and the profile.
    const wording = await form.innerText();
    expect(wording).toMatch(/\(pid \d+\) needs the PIN of token hsm/);
    expect(wording).toContain('for profile onhsm');
    await form.locator('input[name="pin"]').fill('000000');
    await form.getByRole('button', { name: 'Unlock' }).click();
    const refused = await asking;
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/PIN was incorrect/);
    await form.waitFor({ state: 'detached', timeout: 10_000 });
    // Issue 26 (N9): the dialog does not just vanish; the person who typed the PIN reads the token's answer there.
    const answer = page.getByRole('dialog', { name: 'Wrong PIN for kc-wrong-pin' });
    await answer.waitFor({ timeout: 10_000 });
    const words = await answer.innerText();
    expect(words).toMatch(/The token refused this PIN/);
    expect(words).toMatch(/Few tries left|tries? left/i);
    expect(words).toMatch(/\(pid \d+\) was told; run it again to be asked once more/);
    expect(words).not.toContain('000000');
    await page.screenshot({ path: path.join(SHOTS, 'webui-wrong-pin-told.png') });
    await answer.getByRole('button', { name: 'Close' }).click();
    await answer.waitFor({ state: 'detached', timeout: 10_000 });
    await expect
      .poll(
        () =>
          page
            .locator('[data-profile="onhsm"] .error-text')
            .innerText()
            .catch(() => ''),
        { timeout: 10_000 },
      )
      .toMatch(/PIN was incorrect/);
    await page.screenshot({ path: path.join(SHOTS, 'webui-wrong-pin.png') });
  });

  // Issue 16: the token now reports CKF_USER_PIN_COUNT_LOW, and the next prompt says so before anyone types.
  it('the next PIN prompt warns that few tries are left; the right PIN, typed and entered, unlocks the token', async () => {
    // The same process asking again within 5 s is told the same wrong PIN (WrongPinsTold); then it is asked anew.
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    const asking = credential('onhsm');
    const dialog = page.getByRole('dialog', { name: 'PIN for kc-wrong-pin' });
    await dialog.waitFor({ timeout: 15_000 });
    expect(await dialog.getByRole('alert').innerText()).toMatch(/^Few tries left\s+A wrong PIN was entered before/);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('pin');
    await page.screenshot({ path: path.join(SHOTS, 'webui-wrong-pin-tries-left.png') });
    await page.keyboard.type(PIN);
    await page.keyboard.press('Enter');
    // The token took the PIN; it holds no secret for the profile in this test, and says so.
    const unlocked = await asking;
    expect(unlocked.stderr).not.toMatch(/incorrect|cancelled|locked/);
    expect(unlocked.stderr).toMatch(/token "hsm" needs its PIN: enter it in the Kubecred window/);
    expect(unlocked.stderr).toMatch(/no token or client certificate in the token:hsm/);
    await dialog.waitFor({ state: 'detached', timeout: 10_000 });
    // The dialog closes; the window says the PIN worked, and for how long it is kept (round 3, screen 33).
    await expect
      .poll(() => page.locator('.toast[role="status"]').innerText(), { timeout: 10_000 })
      .toMatch(/^Token hsm unlocked: its PIN is kept for \d+ min\.$/);
    await page.screenshot({ path: path.join(SHOTS, 'webui-right-pin-unlocked.png') });
  });
});
