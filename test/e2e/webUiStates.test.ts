import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { launchChromium, type TestChromium } from '../support/chromium.js';
import { recordingBrowser } from '../support/recordingBrowser.js';
import { REPO_ROOT, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const SHOTS = path.join(REPO_ROOT, 'test-results', 'screenshots');

// New-user findings 7 and 12: the page said "signed out" and offered Log in for profiles with
// nothing to log in to, and kept failures (a login, a broken config.yaml) to the broker log.
describe("the main window tells each profile's state and every failure", () => {
  let home: TempHome;
  let broker: TestBroker;
  let chromium: TestChromium;
  let page: Page;
  const { cli, credential } = callersFor(() => home.dir);
  const profile = (name: string) => page.locator(`[data-profile="${name}"]`);

  beforeAll(async () => {
    assertBuilt();
    home = await makeTempHome();
    await writeConfig(
      home.dir,
      'profiles:\n  - { name: ci, provider: static }\n  - { name: bare, provider: static }\n  - { name: sso, provider: oidc, issuer: "https://127.0.0.1:59999", clientId: kubernetes }\n',
    );
    const browserStandIn = await recordingBrowser(home.dir);
    broker = await startTestBroker(home.dir, { KUBECRED_BROWSER: browserStandIn.command }, ['--ui']);
    expect((await cli(['secret', 'set', 'ci', 'token'], 'ci-token-in-the-keychain')).code).toBe(0);
    chromium = await launchChromium({ width: 800, height: 600 });
    page = chromium.page;
    await browserStandIn.openIn(page, 0, 10_000);
    await profile('ci').waitFor({ timeout: 10_000 });
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await broker?.stop();
    await home?.cleanup();
  });

  it('a static profile not used yet says so and offers no Log in; an OIDC profile without a login reads "signed out"', async () => {
    expect(await profile('ci').locator('.state').innerText()).toBe('not used yet');
    expect(await profile('ci').getByRole('button', { name: 'Log in' }).count()).toBe(0);
    expect(await profile('sso').locator('.state').innerText()).toBe('signed out');
    expect(await profile('sso').getByRole('button', { name: 'Log in' }).count()).toBe(1);
  });

  it('a failed Log in shows why on the profile, not only in the broker log', async () => {
    await profile('sso').getByRole('button', { name: 'Log in' }).click();
    await expect
      .poll(
        () =>
          profile('sso')
            .locator('.error-text')
            .innerText()
            .catch(() => ''),
        { timeout: 15_000 },
      )
      .toMatch(
        /discovering the OIDC issuer for profile "sso" failed: cannot reach https:\/\/127\.0\.0\.1:59999 \(ECONNREFUSED: nothing listens on that port\)/,
      );
    await page.screenshot({ path: path.join(SHOTS, 'webui-states-login-failed.png'), fullPage: true });
  });

  it('the audit log says why a request failed, under its outcome', async () => {
    const failed = await credential('sso');
    expect(failed.code).toBe(1);
    await page
      .getByRole('navigation', { name: 'sections' })
      .getByRole('link', { name: /^Activity/ })
      .click();
    const row = page.locator('[data-audit-profile="sso"]').first();
    await expect
      .poll(
        () =>
          row
            .locator('.audit-error')
            .innerText()
            .catch(() => ''),
        { timeout: 10_000 },
      )
      .toMatch(/discovering the OIDC issuer for profile "sso" failed: cannot reach/);
  });

  // Electron review 2, F9: "failed" invited a retry that could not work.
  it('a static profile whose request found no token reads "no secret stored" and says how to store one', async () => {
    expect((await credential('bare')).code).toBe(1);
    await page
      .getByRole('navigation', { name: 'sections' })
      .getByRole('link', { name: /^Profiles/ })
      .click();
    await expect
      .poll(() => profile('bare').locator('.state').innerText(), { timeout: 10_000 })
      .toBe('no secret stored');
    expect(await profile('bare').locator('.error-text').innerText()).toContain('kubecred secret set bare token');
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await profile('bare').screenshot({ path: path.join(SHOTS, `webui-states-no-secret-${colorScheme}.png`) });
    }
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('a broken config.yaml is said at the top of the page', async () => {
    await writeFile(path.join(home.dir, 'config.yaml'), 'profiles:\n  - { name: ci, provider: static\n');
    // The broker notices on its next request; the page shows it from the state it reads.
    await cli(['status']);
    await page.reload();
    await expect
      .poll(
        () =>
          page
            .getByRole('alert')
            .first()
            .innerText()
            .catch(() => ''),
        { timeout: 10_000 },
      )
      .toMatch(/config\.yaml cannot be used: .*line \d+/);
    await page.screenshot({ path: path.join(SHOTS, 'webui-states-config-error.png'), fullPage: true });
  });
});
