import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonsOf, writeConfig } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { launchChromium, type TestChromium } from '../support/chromium.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { REPO_ROOT, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const SHOTS = process.env.KUBECRED_SHOTS ?? path.join(REPO_ROOT, 'test-results', 'screenshots');

/**
 * New user review 4, N10: after `kill -9` of the broker, kubectl started a new one (on a new
 * port) and the old tab kept saying it waited for "the broker that opened it" while showing
 * green "ready" badges and "signed in as dave, 49 min". It says the broker is gone and how to
 * open Kubecred again, and shows none of what may be out of date.
 */
describe('a tab whose broker was killed and started again', () => {
  let home: TempHome;
  let chromium: TestChromium;
  let browserStandIn: RecordingBrowser;
  const { cli, credential } = callersFor(
    () => home.dir,
    () => ({ KUBECRED_BROWSER: browserStandIn.command }),
  );

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    await writeConfig(home.dir, `profiles:\n  - { name: demo, provider: static }\n`);
    browserStandIn = await recordingBrowser(home.dir);
    chromium = await launchChromium({ width: 1000, height: 700 });
    expect((await cli(['secret', 'set', 'demo', 'token'], 'tab-test-token')).code).toBe(0);
  }, 60_000);

  afterAll(async () => {
    await cli(['stop']);
    await chromium?.close();
    await home?.cleanup();
  });

  it('says Kubecred stopped or started again, names kubecred ui, and hides the stale profiles', async () => {
    expect((await cli(['ui'])).code).toBe(0);
    const page = await chromium.context.newPage();
    await browserStandIn.openIn(page, 0);
    const row = page.locator('[data-profile="demo"]');
    await row.waitFor({ timeout: 10_000 });

    const [pid] = await daemonsOf(home.dir);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid!, 'SIGKILL');
    // kubectl's next request starts a new broker, on a new port.
    expect((await credential('demo')).code).toBe(0);

    const alert = page.getByRole('alert');
    await expect
      .poll(() => alert.innerText().catch(() => ''), { timeout: 30_000 })
      .toMatch(/Kubecred stopped or was started again/);
    expect(await alert.innerText()).toContain('kubecred ui');
    expect(await row.count()).toBe(0);
    await mkdir(SHOTS, { recursive: true });
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: path.join(SHOTS, `dead-tab-${colorScheme}.png`) });
    }
    await page.close();
  }, 90_000);
});
