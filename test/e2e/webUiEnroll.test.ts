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
    await page.screenshot({ path: path.join(SHOTS, 'webui-enroll-waiting.png'), fullPage: true });
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
    await page.screenshot({ path: path.join(SHOTS, 'webui-enroll-ready.png'), fullPage: true });
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
    await journey.save('webui-enroll');
  }, 300_000);
});
