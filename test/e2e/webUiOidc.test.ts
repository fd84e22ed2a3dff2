import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { buildRenderer, launchChromium, type TestChromium } from '../support/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { startBrowser, type BrowserDriver } from '../support/browserDriver.js';
import { startTestIssuer, type TestIssuer } from '../support/oidcIssuer.js';
import { seriousAxeViolations } from '../support/axe.js';
import { REPO_ROOT, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';

const SHOTS = path.join(REPO_ROOT, 'test-results', 'screenshots');

describe('an OIDC login started from the web UI of a real broker (kubecred daemon --ui)', () => {
  let home: TempHome;
  const { cli } = callersFor(() => home.dir);
  let issuer: TestIssuer;
  let broker: TestBroker;
  let signer: BrowserDriver;
  let browser: TestChromium;
  let page: Page;
  let browserStandIn: RecordingBrowser;

  beforeAll(async () => {
    assertBuilt({ shim: false });
    await buildRenderer();
    await mkdir(SHOTS, { recursive: true });
    home = await makeTempHome();
    issuer = await startTestIssuer({ dir: path.join(home.dir, 'issuer') });
    await writeConfig(
      home.dir,
      `profiles:\n  - name: sso\n    provider: oidc\n    issuer: ${issuer.issuer}\n    clientId: ${issuer.clientId}\n    caFile: ${issuer.caFile}\n    scopes: [openid, offline_access]\n`,
    );
    browserStandIn = await recordingBrowser(home.dir);
    broker = await startTestBroker(home.dir, { KUBECRED_BROWSER: browserStandIn.command }, ['--ui']);
    signer = await startBrowser();
    browser = await launchChromium({ width: 760, height: 900 });
    page = browser.page;
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await signer?.close();
    await broker?.stop();
    await issuer?.stop();
    await home?.cleanup();
  });

  it('shows the profile signed out, then Log in opens the issuer in the browser and the page shows the login waiting', async () => {
    await browserStandIn.openIn(page, 0);
    const item = page.locator('[data-profile="sso"]');
    await item.waitFor({ timeout: 10_000 });
    expect(await item.locator('.state').innerText()).toBe('signed out');
    await page.screenshot({ path: path.join(SHOTS, 'webui-oidc-signed-out.png'), fullPage: true });

    await item.locator('button', { hasText: 'Log in' }).click();
    const authorize = await browserStandIn.target(1);
    expect(authorize.startsWith(`${issuer.issuer}/`)).toBe(true);
    expect(new URL(authorize).searchParams.get('code_challenge_method')).toBe('S256');
    const waiting = page.locator('[data-login="sso"]');
    await waiting.waitFor({ timeout: 10_000 });
    expect(await waiting.locator('a.login-link').getAttribute('href')).toBe(authorize);
    // The row tells the truth while the login waits: not "signed out", and no second Log in.
    await expect
      .poll(() => item.locator('.state').innerText(), { timeout: 10_000 })
      .toBe('signing in: waiting for you');
    expect(await item.locator('button', { hasText: 'Log in' }).count()).toBe(0);
    for (const colorScheme of ['dark', 'light'] as const) {
      await page.emulateMedia({ colorScheme });
      expect(await seriousAxeViolations(page), colorScheme).toEqual([]);
      await page.screenshot({ path: path.join(SHOTS, `webui-oidc-waiting-${colorScheme}.png`), fullPage: true });
    }
    await page.screenshot({ path: path.join(SHOTS, 'webui-oidc-waiting.png'), fullPage: true });
  });

  // New user review 4, N14: a Cancel is the person's no, not a failure: the profile goes back to
  // signed out, not red with "failed", in the window and in kubecred status alike.
  it('Cancel on the waiting card stops the login: the card goes, the profile is signed out (not failed), and the redirect server is closed', async () => {
    const waiting = page.locator('[data-login="sso"]');
    const redirect = new URL(await browserStandIn.target(1)).searchParams.get('redirect_uri')!;
    await waiting.locator('button', { hasText: 'Cancel' }).click();
    await expect.poll(() => waiting.count(), { timeout: 10_000 }).toBe(0);
    const item = page.locator('[data-profile="sso"]');
    await expect.poll(() => item.innerText(), { timeout: 10_000 }).toMatch(/signed out/);
    expect(await item.innerText()).not.toMatch(/failed|cancelled/);
    const status = await cli(['status', '-o', 'json']);
    expect(status.stdout).not.toContain('was cancelled');
    // Stopped promptly: nothing listens for the cancelled login's redirect any more.
    await expect(fetch(redirect)).rejects.toThrow();
    expect(issuer.counts.authorizations).toBe(0);
    await page.screenshot({ path: path.join(SHOTS, 'webui-oidc-cancelled.png'), fullPage: true });
  });

  it('a second Log in after the cancel opens a new sign-in', async () => {
    await page.locator('[data-profile="sso"] button', { hasText: 'Log in' }).click();
    const authorize = await browserStandIn.target(2);
    expect(authorize.startsWith(`${issuer.issuer}/`)).toBe(true);
    await page.locator('[data-login="sso"]').waitFor({ timeout: 10_000 });
  });

  it('after signing in at the issuer, the page shows the profile signed in with its time left, without a reload', async () => {
    const text = await signer.signIn(await browserStandIn.nth(2));
    expect(text).toContain('signed in');
    const state = page.locator('[data-profile="sso"] .state');
    await expect.poll(() => state.innerText(), { timeout: 15_000 }).toMatch(/^signed in as alice, \d+ (min|s|h)/);
    expect(await page.locator('[data-login="sso"]').count()).toBe(0);
    expect(issuer.counts.authorizations).toBe(1);
    await page.screenshot({ path: path.join(SHOTS, 'webui-oidc-signed-in.png'), fullPage: true });
  });
});
