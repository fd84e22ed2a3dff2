import path from 'node:path';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { seriousAxeViolations } from '../support/axe.js';
import { buildRenderer, launchChromium, type TestChromium } from '../support/chromium.js';
import { JourneyTranscript } from '../support/journeyTranscript.js';
import type { KubeApiServer } from '../support/kubeApiServer.js';
import { startEnrollCluster, type EnrollCluster } from '../support/enrollCluster.js';
import { findKubectlBuilds, runKubectl } from '../support/kubectl.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { REPO_ROOT, assertBuilt } from '../support/repo.js';
import { SOFTHSM_MODULE, type SoftHsm } from '../support/softhsm.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const PIN = '271828';
const KUBECTL = findKubectlBuilds().at(-1)!;
const SHOTS = process.env.KUBECRED_SHOTS ?? path.join(REPO_ROOT, 'test-results', 'screenshots');

// Issue 31, item 6: `kubecred enroll` started from the window. The person fills a form, types the
// token's PIN in the page, reads the command a cluster admin runs, and sees the profile ready;
// the cluster is a real kube-apiserver with kube-controller-manager's CSR signer.
describe('"Use a hardware key" in the window of a real broker', () => {
  let home: TempHome;
  let api: KubeApiServer;
  let cluster: EnrollCluster;
  let hsm: SoftHsm;
  let kubeconfig: string;
  let broker: TestBroker;
  let browserStandIn: RecordingBrowser;
  let chromium: TestChromium;
  let page: Page;
  const env = () => ({
    KUBECONFIG: kubeconfig,
    SOFTHSM2_CONF: hsm.conf,
    PATH: `${path.dirname(KUBECTL.path)}:${process.env.PATH ?? ''}`,
  });
  const kubectl = (args: string[]) =>
    runKubectl(KUBECTL.path, args, { kubeconfig, env: { ...process.env, KUBECRED_HOME: home.dir, ...env() } });

  beforeAll(async () => {
    assertBuilt({ shim: true });
    if (!SOFTHSM_MODULE) throw new Error('SoftHSM2 is not installed (apt-get install softhsm2)');
    await buildRenderer();
    home = await makeTempHome();
    cluster = await startEnrollCluster(home.dir, { label: 'kc-window', pin: PIN });
    ({ api, hsm, kubeconfig } = cluster);
    await writeConfig(home.dir, `tokens:\n  - { name: hsm, module: ${hsm.module}, label: kc-window }\nprofiles: []\n`);
    browserStandIn = await recordingBrowser(home.dir);
    broker = await startTestBroker(home.dir, { ...env(), KUBECRED_BROWSER: browserStandIn.command }, ['--ui']);
    chromium = await launchChromium({ width: 1280, height: 800 });
    page = chromium.page;
    await browserStandIn.openIn(page, 0, 10_000);
  }, 240_000);

  afterAll(async () => {
    await chromium?.close();
    await broker?.stop();
    await cluster?.stop();
    await home?.cleanup();
  });

  it('a form, the PIN in the page, an admin’s approval: kubectl as the new user through the proxy', async () => {
    const journey = new JourneyTranscript('the window: Use a hardware key, to kubectl auth whoami');
    journey.did('click "Use a hardware key"');
    await page.getByRole('link', { name: 'Use a hardware key' }).first().click({ timeout: 10_000 });
    const form = page.locator('form[aria-label="use a hardware key"]');
    await form.waitFor({ timeout: 10_000 });
    // The selects come from the broker: its kubeconfig's contexts and config.yaml's tokens.
    await expect.poll(() => form.locator('select[name="context"] option').allInnerTexts()).toEqual(['admin']);
    await expect.poll(() => form.locator('select[name="token"] option').allInnerTexts()).toEqual(['hsm']);
    expect(await form.locator('select[name="keyType"]').inputValue()).toBe('ec-p256');

    // A taken context name is refused beside the form, before any key is made.
    await form.locator('input[name="profile"]').fill('admin');
    await form.locator('input[name="user"]').fill('jane');
    await form.locator('button[type="submit"]').click();
    const refusal = form.locator('[data-error-for="form"]');
    await refusal.waitFor({ timeout: 10_000 });
    expect(await refusal.innerText()).toMatch(/there is a context "admin" already/);
    journey.saw('page', await refusal.innerText());

    journey.did('fill the form: profile prod, context admin, token hsm, user jane, groups devs and ops');
    await form.locator('input[name="profile"]').fill('prod');
    await form.locator('textarea[name="groups"]').fill('devs\nops');
    await page.screenshot({ path: path.join(SHOTS, 'webui-enroll-form.png'), fullPage: true });
    expect(await seriousAxeViolations(page)).toEqual([]);
    // The small window in the dark theme too.
    await page.setViewportSize({ width: 800, height: 600 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: path.join(SHOTS, 'webui-enroll-form-dark-800.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 800 });
    journey.did('click "Make the key"');
    await form.locator('button[type="submit"]').click();

    // The broker's own token service asks for the PIN in the page.
    const pinForm = page.locator('form[aria-label="PIN for hsm"]');
    await pinForm.waitFor({ timeout: 30_000 });
    journey.saw('page', await pinForm.innerText());
    journey.did('type the PIN in the page and press Enter');
    await pinForm.locator('input[name="pin"]').fill(PIN);
    await page.keyboard.press('Enter');

    const card = page.locator('[data-login="prod"]');
    const message = card.locator('.plugin-message');
    await expect
      .poll(() => message.innerText().catch(() => ''), { timeout: 60_000 })
      .toMatch(/kubectl certificate approve kubecred-prod-[a-z0-9]+/);
    const waiting = await card.innerText();
    journey.saw('page', waiting);
    const csr = /kubectl certificate approve (kubecred-prod-[a-z0-9]+)/.exec(waiting)![1]!;
    // Round 4, N27: the admin's command has a Copy button, and the wait a Cancel.
    await chromium.context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await card.getByRole('button', { name: 'Copy' }).click();
    await expect
      .poll(() => page.evaluate(() => navigator.clipboard.readText()))
      .toBe(`kubectl certificate approve ${csr}`);
    expect(await card.getByRole('button', { name: 'Cancel' }).count()).toBe(1);
    await page.screenshot({ path: path.join(SHOTS, 'webui-enroll-waiting.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: path.join(SHOTS, 'webui-enroll-waiting-dark.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
    expect(waiting).not.toContain(PIN);

    journey.did(`(the cluster admin) kubectl --context admin certificate approve ${csr}`);
    const approval = await kubectl(['--context', 'admin', 'certificate', 'approve', csr]);
    expect(approval.code, approval.stderr).toBe(0);

    await expect
      .poll(() => message.innerText().catch(() => ''), { timeout: 90_000 })
      .toMatch(/profile prod is ready: kubectl --context prod reaches https:\/\/127\.0\.0\.1:\d+ as jane/);
    const ready = await card.innerText();
    journey.saw('page', ready);
    expect(ready).not.toContain(PIN);
    // Round 4, N27: done is said as done, with when and how to renew (and Copy for that command).
    expect(ready).not.toMatch(/waiting for it|approves it with/);
    expect(await message.innerText()).toMatch(
      /renew it before \w{3} \d{1,2}(?: \d{4})?, \d\d:\d\d.* with:\s+kubecred enroll prod --renew --context admin/,
    );
    expect(await card.getByRole('button', { name: 'Cancel' }).count()).toBe(0);
    await card.getByRole('button', { name: 'Copy' }).click();
    await expect
      .poll(() => page.evaluate(() => navigator.clipboard.readText()))
      .toBe('kubecred enroll prod --renew --context admin');
    await page.screenshot({ path: path.join(SHOTS, 'webui-enroll-ready.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: path.join(SHOTS, 'webui-enroll-ready-dark.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
    // The new profile is in the list too.
    await page.locator('[data-profile="prod"]').waitFor({ timeout: 15_000 });

    journey.did('kubectl --context prod auth whoami -o json');
    const whoami = await kubectl(['--context', 'prod', 'auth', 'whoami', '-o', 'json']);
    expect(whoami.code, whoami.stderr).toBe(0);
    journey.saw('kubectl', whoami.stdout);
    const user = JSON.parse(whoami.stdout).status.userInfo;
    expect(user.username).toBe('jane');
    expect(user.groups).toEqual(expect.arrayContaining(['devs', 'ops']));

    const config = parseYaml(await readFile(path.join(home.dir, 'config.yaml'), 'utf8'));
    expect(config.profiles[0]).toMatchObject({
      name: 'prod',
      provider: 'static',
      tokenCertificate: { token: 'hsm', label: 'kubecred-prod' },
      proxy: { server: api.url },
    });
    expect(broker.output()).not.toContain(PIN);

    journey.did('click "Dismiss"');
    await card.getByRole('button', { name: 'Dismiss' }).click();
    await card.waitFor({ state: 'detached', timeout: 10_000 });

    // Round 4, N20: the profile's page names the cluster, not the exec proxy's listener.
    await page.goto(`${new URL(page.url()).origin}/#/profile/prod`);
    const detail = page.locator('section[aria-label="profile prod"]');
    const clusters = detail.getByRole('list', { name: 'cluster API servers' });
    await expect.poll(() => clusters.innerText().catch(() => ''), { timeout: 10_000 }).toBe(api.url);
    expect(await detail.locator('[data-fact="Exec proxy"]').innerText()).toMatch(
      new RegExp(`^kubectl → https://127\\.0\\.0\\.1:\\d+ → ${api.url.replace(/\./g, '\\.')}`),
    );
    await page.screenshot({ path: path.join(SHOTS, 'webui-enroll-profile.png'), fullPage: true });

    // Round 4, N28: Activity follows requests through the exec proxy as they come, with no
    // Refresh: the proxy holds the credential, so no profile changes, only the trail grows.
    await page.goto(`${new URL(page.url()).origin}/#/activity`);
    const bursts = page.locator('section[aria-label="audit log"] tr[data-audit-burst][data-audit-profile="prod"]');
    await bursts.first().waitFor({ timeout: 10_000 });
    const proxied = async () =>
      (await bursts.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-audit-burst')))).reduce(
        (sum, n) => sum + Number(n),
        0,
      );
    const before = await proxied();
    const version = await kubectl(['--context', 'prod', 'get', '--raw', '/version']);
    expect(version.code, version.stderr).toBe(0);
    await expect.poll(proxied, { timeout: 5_000 }).toBeGreaterThan(before);
    await journey.save('webui-enroll');
  }, 300_000);

  // Round 4, N27: the window could not stop waiting for an admin.
  it('Cancel stops the wait: the card says so, and the key made for it is gone from the token', async () => {
    await page.goto(`${new URL(page.url()).origin}/#/profiles/enroll`);
    const form = page.locator('form[aria-label="use a hardware key"]');
    await form.waitFor({ timeout: 10_000 });
    await expect.poll(() => form.locator('select[name="context"] option').allInnerTexts()).toContain('admin');
    await form.locator('select[name="context"]').selectOption('admin');
    await form.locator('input[name="profile"]').fill('scratch');
    await form.locator('input[name="user"]').fill('sam');
    await form.locator('button[type="submit"]').click();
    const card = page.locator('[data-login="scratch"]');
    // The broker may hold the token's login from the first enrollment; if not, it asks again.
    const pinForm = page.locator('form[aria-label="PIN for hsm"]');
    await Promise.race([pinForm.waitFor({ timeout: 60_000 }), card.waitFor({ timeout: 60_000 })]);
    if (await pinForm.isVisible()) {
      await pinForm.locator('input[name="pin"]').fill(PIN);
      await page.keyboard.press('Enter');
    }
    await expect
      .poll(() => card.innerText().catch(() => ''), { timeout: 60_000 })
      .toMatch(/kubectl certificate approve kubecred-scratch-/);
    await card.getByRole('button', { name: 'Cancel' }).click();
    await expect
      .poll(() => card.innerText().catch(() => ''), { timeout: 15_000 })
      .toMatch(/you stopped waiting for the certificate: no certificate was stored/);
    const text = await card.innerText();
    expect(text).toMatch(/removed the key made for kubecred-scratch-[a-z0-9]+ from token hsm/);
    // Nothing is left for an admin to do: no command to copy.
    expect(text).not.toMatch(/waiting for it up to|kubectl certificate approve/);
    expect(await card.getByRole('button', { name: 'Copy' }).count()).toBe(0);
    await page.screenshot({ path: path.join(SHOTS, 'webui-enroll-cancelled.png'), fullPage: true });
    await card.getByRole('button', { name: 'Dismiss' }).click();
    await card.waitFor({ state: 'detached', timeout: 10_000 });
    expect(await page.locator('[data-profile="scratch"]').count()).toBe(0);
  }, 120_000);
});
