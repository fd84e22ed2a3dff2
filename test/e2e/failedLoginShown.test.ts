import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { freePort } from '../../src/main/platform/freePort.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfig } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { launchChromium, type TestChromium } from '../support/chromium.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { REPO_ROOT, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const SHOTS = process.env.KUBECRED_SHOTS ?? path.join(REPO_ROOT, 'test-results', 'screenshots');

/**
 * New user review 4, N18: `kubecred login sso` failed (the issuer down), `status` said why, and
 * the window said "signed out" with no reason and Activity had no row. A login that fails is the
 * profile's failure wherever the person looks, whoever started it.
 */
describe('a login that failed in the terminal shows in the window and its Activity', () => {
  let home: TempHome;
  let chromium: TestChromium;
  let browserStandIn: RecordingBrowser;
  const env = () => ({ KUBECRED_BROWSER: browserStandIn.command });
  const { cli } = callersFor(() => home.dir, env);

  beforeAll(async () => {
    assertBuilt({ shim: false });
    home = await makeTempHome();
    const issuer = `https://127.0.0.1:${await freePort()}`;
    await writeConfig(
      home.dir,
      `profiles:\n  - { name: sso, provider: oidc, issuer: "${issuer}", clientId: kubernetes }\n`,
    );
    browserStandIn = await recordingBrowser(home.dir);
    chromium = await launchChromium({ width: 1100, height: 760 });
  }, 60_000);

  afterAll(async () => {
    await cli(['stop']);
    await chromium?.close();
    await home?.cleanup();
  });

  it('the row says failed and why; the profile page and Activity have the login', async () => {
    const login = await cli(['login', 'sso']);
    expect(login.code).toBe(1);
    expect(login.stderr).toContain('ECONNREFUSED');

    expect((await cli(['ui'])).code).toBe(0);
    const page = await chromium.context.newPage();
    await browserStandIn.openIn(page, 0);
    const row = page.locator('[data-profile="sso"]');
    await row.waitFor({ timeout: 10_000 });
    await expect.poll(() => row.innerText(), { timeout: 10_000 }).toMatch(/failed/);
    expect(await row.innerText()).toContain('ECONNREFUSED');
    expect(await row.innerText()).not.toContain('signed out');

    await row.getByRole('link', { name: 'sso' }).first().click();
    const activity = page.locator('table[aria-label="recent activity of sso"]');
    await expect.poll(() => activity.innerText(), { timeout: 10_000 }).toMatch(/failed/);
    expect(await activity.innerText()).toContain('ECONNREFUSED');
    const lastCaller = page.locator('dt:has-text("Last caller") + dd');
    expect(await lastCaller.innerText()).toMatch(/failed$/);
    await mkdir(SHOTS, { recursive: true });
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: path.join(SHOTS, `failed-login-profile-${colorScheme}.png`), fullPage: true });
    }
    await page.close();
  });
});
