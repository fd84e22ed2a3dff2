import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { seriousAxeViolations } from '../support/axe.js';
import { callersFor } from '../support/callers.js';
import { buildRenderer, launchChromium, type TestChromium } from '../support/chromium.js';
import { findLeaks } from '../support/hygiene.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { REPO_ROOT, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const TOKEN = 'kc-add-form-token-5e1f0c7d22';
const SHOTS = process.env.KUBECRED_SHOTS ?? path.join(REPO_ROOT, 'test-results', 'screenshots');

// Round 4, N19: "Add a profile" asked only the required fields. A private issuer's CA and its
// scopes, an EKS profile's AWS profile and role, and a static profile's token each took a
// second trip (Edit…, or the CLI); and the page and its card had the same heading.
describe('"Add a profile" in the window of a real broker', () => {
  let home: TempHome;
  let broker: TestBroker;
  let chromium: TestChromium;
  let page: Page;
  let browserStandIn: RecordingBrowser;
  const { credential } = callersFor(() => home.dir);
  const profilesInConfig = async () =>
    (parseYaml(await readFile(path.join(home.dir, 'config.yaml'), 'utf8')) as { profiles: Record<string, unknown>[] })
      .profiles;
  const form = () => page.locator('form[aria-label="add profile"]');
  const openForm = async (provider: string, name: string) => {
    await page.goto(`${new URL(page.url()).origin}/#/profiles`);
    await page.getByRole('link', { name: 'Add a profile' }).click();
    await form().waitFor({ timeout: 10_000 });
    await form().locator('input[name="name"]').fill(name);
    await form().locator('select[name="provider"]').selectOption(provider);
  };
  const shots = async (name: string) => {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: path.join(SHOTS, `webui-add-${name}-${colorScheme}.png`), fullPage: true });
    }
    await page.emulateMedia({ colorScheme: 'light' });
  };

  beforeAll(async () => {
    assertBuilt({ shim: true });
    await buildRenderer();
    home = await makeTempHome();
    await writeConfig(home.dir, 'profiles:\n  - { name: first, provider: static }\n');
    browserStandIn = await recordingBrowser(home.dir);
    broker = await startTestBroker(home.dir, { KUBECRED_BROWSER: browserStandIn.command }, ['--ui']);
    chromium = await launchChromium({ width: 1280, height: 800 });
    page = chromium.page;
    await browserStandIn.openIn(page, 0, 10_000);
    await page.locator('[data-profile="first"]').waitFor({ timeout: 10_000 });
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await broker?.stop();
    await home?.cleanup();
  });

  it('the page and its card do not repeat one heading (nor on "Use a hardware key")', async () => {
    await openForm('static', 'x');
    const pageHeading = await page.getByRole('heading', { level: 1 }).innerText();
    expect(pageHeading).toBe('Add a profile');
    expect(await form().getByRole('heading', { level: 2 }).innerText()).not.toBe(pageHeading);
    await page.goto(`${new URL(page.url()).origin}/#/profiles`);
    await page.getByRole('link', { name: 'Use a hardware key' }).click();
    const enroll = page.locator('form[aria-label="use a hardware key"]');
    await enroll.waitFor({ timeout: 10_000 });
    expect(await enroll.getByRole('heading', { level: 2 }).innerText()).not.toBe(
      await page.getByRole('heading', { level: 1 }).innerText(),
    );
  });

  it('an OIDC profile with its CA file and scopes, set under "More settings"', async () => {
    await openForm('oidc', 'corp');
    await form().locator('input[name="issuer"]').fill('https://login.corp.example');
    await form().locator('input[name="clientId"]').fill('kubernetes');
    expect(await form().locator('input[name="caFile"]').isVisible()).toBe(false);
    await form().getByText('More settings').click();
    await form().locator('input[name="caFile"]').fill('/etc/ssl/corp-ca.pem');
    const scopes = form().locator('textarea[name="scopes"]');
    expect(await scopes.getAttribute('placeholder')).toBe('openid\noffline_access');
    await scopes.fill('openid\ngroups');
    await shots('oidc');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await form().getByRole('button', { name: 'Add profile' }).click();
    await page.locator('[data-profile="corp"]').waitFor({ timeout: 10_000 });
    expect((await profilesInConfig()).find((p) => p.name === 'corp')).toMatchObject({
      provider: 'oidc',
      issuer: 'https://login.corp.example',
      clientId: 'kubernetes',
      caFile: '/etc/ssl/corp-ca.pem',
      scopes: ['openid', 'groups'],
    });
  });

  it('an EKS profile with its AWS profile and the role it assumes', async () => {
    await openForm('eks', 'eks-prod');
    await form().locator('input[name="clusterId"]').fill('prod-cluster');
    await form().locator('input[name="region"]').fill('eu-west-1');
    await form().getByText('More settings').click();
    await form().locator('input[name="awsProfile"]').fill('work');
    await form().locator('input[name="roleArn"]').fill('arn:aws:iam::123456789012:role/admin');
    await shots('eks');
    await form().getByRole('button', { name: 'Add profile' }).click();
    await page.locator('[data-profile="eks-prod"]').waitFor({ timeout: 10_000 });
    expect((await profilesInConfig()).find((p) => p.name === 'eks-prod')).toMatchObject({
      provider: 'eks',
      clusterId: 'prod-cluster',
      region: 'eu-west-1',
      awsProfile: 'work',
      roleArn: 'arn:aws:iam::123456789012:role/admin',
    });
  });

  it("a static profile's bearer token typed in the form: kubectl is served with it, and it is nowhere but the keychain", async () => {
    await openForm('static', 'ci');
    const field = form().locator('input[name="token"]');
    expect(await field.getAttribute('type')).toBe('password');
    await field.fill(TOKEN);
    expect(await form().innerText()).not.toContain('Store its token afterwards');
    await shots('static');
    await form().getByRole('button', { name: 'Add profile' }).click();
    await page.locator('[data-profile="ci"]').waitFor({ timeout: 10_000 });
    const served = await credential('ci');
    expect(served.code, served.stderr).toBe(0);
    expect(JSON.parse(served.stdout).status.token).toBe(TOKEN);
    expect(await readFile(path.join(home.dir, 'config.yaml'), 'utf8')).not.toContain(TOKEN);
    expect(await page.content()).not.toContain(TOKEN);
    expect(await findLeaks([TOKEN], { dir: home.dir, log: broker.output() })).toEqual([]);
  });
});
