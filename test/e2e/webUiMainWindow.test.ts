import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { buildRenderer, launchChromium, type TestChromium } from '../support/chromium.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiStandIn, type ApiStandIn } from '../support/apiServer.js';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { run } from '../support/run.js';
import { seriousAxeViolations } from '../support/axe.js';
import { callersFor } from '../support/callers.js';
import { writeExecKubeconfig } from '../support/kubeconfig.js';
import { findKubectlBuilds, runKubectl } from '../support/kubectl.js';
import { createTestPki } from '../support/pki.js';
import { NATIVE_SHIM, REPO_ROOT, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const TOKEN = 'main-window-bearer';
const REGISTRY_PASSWORD = 'quay-robot-password-6f1e2d';
const SHOTS = path.join(REPO_ROOT, 'test-results', 'screenshots');
const KUBECTL = findKubectlBuilds()[0];

const INITIAL_CONFIG =
  '# written by hand\nprofiles: []\nregistries:\n  - name: quay\n    matchImages: [quay.io/team]\n  - name: ecr\n    matchImages: ["*.dkr.ecr.*.amazonaws.com"]\n    username: AWS\n    passwordCommand: { command: aws, args: [ecr, get-login-password] }\n';

describe('the main window of a real broker (kubecred daemon --ui): profiles, tokens, audit log', () => {
  let home: TempHome;
  let broker: TestBroker;
  let api: ApiStandIn;
  let chromium: TestChromium;
  let page: Page;
  let browserStandIn: RecordingBrowser;
  const { cli, credential } = callersFor(() => home.dir);
  const configText = () => readFile(path.join(home.dir, 'config.yaml'), 'utf8');
  /** Opens a section from the nav, as a person does. */
  const open = (section: string) =>
    page
      .getByRole('navigation', { name: 'sections' })
      .getByRole('link', { name: new RegExp(`^${section}`) })
      .click();

  beforeAll(async () => {
    assertBuilt({ shim: true });
    await buildRenderer();
    home = await makeTempHome();
    await writeConfig(home.dir, INITIAL_CONFIG);
    api = await startApiStandIn({ pki: await createTestPki(path.join(home.dir, 'pki')), auth: { bearerToken: TOKEN } });
    browserStandIn = await recordingBrowser(home.dir);
    broker = await startTestBroker(home.dir, { KUBECRED_BROWSER: browserStandIn.command }, ['--ui']);
    chromium = await launchChromium({ width: 760, height: 1100 });
    page = chromium.page;
  }, 180_000);

  afterAll(async () => {
    await chromium?.close();
    await broker?.stop();
    await api?.close();
    await home?.cleanup();
  });

  it("shows the broker's validation errors beside the field, and writes nothing", async () => {
    await browserStandIn.openIn(page, 0, 10_000);
    // No profiles yet: the first-run page offers to add one.
    await page.getByRole('link', { name: 'Add a profile' }).click({ timeout: 10_000 });
    await page.locator('form[aria-label="add profile"]').waitFor({ timeout: 10_000 });
    const form = page.locator('form[aria-label="add profile"]');
    await form.locator('select[name="provider"]').selectOption('oidc');
    await form.locator('input[name="name"]').fill('sso');
    await form.locator('input[name="issuer"]').fill('not a url');
    await form.locator('input[name="clientId"]').fill('kubernetes');
    await form.locator('button[type="submit"]').click();
    await expect.poll(() => form.locator('[data-error-for="issuer"]').count(), { timeout: 10_000 }).toBe(1);
    expect(await form.locator('[data-error-for="issuer"]').innerText()).toMatch(/issuer/i);
    await page.screenshot({ path: path.join(SHOTS, 'webui-main-invalid.png'), fullPage: true });

    await form.locator('select[name="provider"]').selectOption('static');
    await form.locator('input[name="name"]').fill('Not Valid');
    await form.locator('button[type="submit"]').click();
    await expect.poll(() => form.locator('[data-error-for="name"]').count(), { timeout: 10_000 }).toBe(1);
    expect(await configText()).toBe(INITIAL_CONFIG);
  });

  it('adds a static profile that kubectl then uses, and the audit log shows the request', async () => {
    const form = page.locator('form[aria-label="add profile"]');
    await form.locator('input[name="name"]').fill('lab');
    await form.locator('button[type="submit"]').click();
    await page.locator('[data-profile="lab"]').waitFor({ timeout: 10_000 });
    expect(await configText()).toMatch(/# written by hand[\s\S]*name: lab[\s\S]*provider: static/);
    await page.screenshot({ path: path.join(SHOTS, 'webui-main-profiles.png'), fullPage: true });

    const stored = await cli(['secret', 'set', 'lab', 'token'], TOKEN);
    expect(stored.code, stored.stderr).toBe(0);
    expect(KUBECTL, "no kubectl found (gcloud's kubectl.1.* or PATH)").toBeDefined();
    const kubeconfig = await writeExecKubeconfig({
      path: path.join(home.dir, 'kubeconfig'),
      server: api.url,
      caPem: api.caPem,
      command: NATIVE_SHIM,
      args: ['credential', 'lab'],
      apiVersion: 'client.authentication.k8s.io/v1',
      env: { KUBECRED_HOME: home.dir },
    });
    const result = await runKubectl(KUBECTL!.path, ['get', '--raw', '/version'], { kubeconfig });
    expect(result.code, result.stderr).toBe(0);
    expect(api.requests.some((r) => r.authorized)).toBe(true);

    await open('Activity');
    const audit = page.locator('section[aria-label="audit log"]');
    const row = audit.locator('tr[data-audit-profile="lab"]');
    await expect.poll(() => row.count(), { timeout: 10_000 }).toBeGreaterThan(0);
    const text = await row.first().innerText();
    expect(text).toContain('served');
    expect(text).toMatch(/kubectl.*\(pid \d+\)/);
    // Round 4, N28: the view follows the trail as it grows, with no Refresh to click. A request
    // for a profile config.yaml does not have changes no profile's state: only the trail is new.
    expect(await audit.getByRole('button', { name: 'Refresh' }).count()).toBe(0);
    const unknown = await credential('no-such-profile');
    expect(unknown.code).toBe(1);
    await expect
      .poll(() => audit.locator('tr[data-audit-profile="no-such-profile"]').count(), { timeout: 5_000 })
      .toBe(1);
    await page.screenshot({ path: path.join(SHOTS, 'webui-main-audit.png'), fullPage: true });
    await open('Profiles');
    expect(await page.locator('[data-profile="lab"] .state').innerText()).not.toBe('');
  });

  it('lists the image registries and where their logins come from', async () => {
    await open('Registries');
    const list = page.locator('ul[aria-label="registries"]');
    await list.waitFor({ timeout: 10_000 });
    expect(await list.locator('[data-registry="quay"]').innerText()).toMatch(
      /quay\.io\/team[\s\S]*login in the secret store/,
    );
    expect(await list.locator('[data-registry="ecr"]').innerText()).toMatch(
      /\*\.dkr\.ecr\.\*\.amazonaws\.com[\s\S]*password from its command, as AWS/,
    );
    // How to point docker at Kubecred for these registries: credHelpers names exact hosts; the
    // ECR wildcard is said in words.
    await page.getByText('How to use them with docker, podman and skopeo').click();
    expect(JSON.parse(await page.locator('.config-example').innerText())).toEqual({
      credHelpers: { 'quay.io': 'kubecred' },
    });
    expect(await page.locator('.how-to').innerText()).toContain(
      'For "*.dkr.ecr.*.amazonaws.com": add each registry host',
    );
    // Round 3, item 6: a store-backed registry can be logged in to here, as docker login would,
    // and docker's own helper then hands that login out.
    expect(await list.locator('[data-registry="quay"] .last-use').innerText()).toBe('not asked for yet');
    expect(await list.locator('[data-registry="ecr"]').getByRole('button', { name: 'Log in…' }).count()).toBe(0);
    await list.locator('[data-registry="quay"]').getByRole('button', { name: 'Log in…' }).click();
    const form = list.getByRole('form', { name: 'log in to quay' });
    expect(await form.locator('input[name="server"]').inputValue()).toBe('quay.io');
    await form.locator('input[name="username"]').fill('robot+ci');
    await form.locator('input[name="password"]').fill(REGISTRY_PASSWORD);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await form.getByRole('button', { name: 'Store the login' }).click();
    await expect
      .poll(() => list.locator('[data-registry="quay"] [role="status"]').innerText(), { timeout: 10_000 })
      .toBe('✓ Stored the login of robot+ci for quay.io');
    const helper = await run(path.join(REPO_ROOT, 'bin', 'docker-credential-kubecred'), ['get'], {
      env: brokerEnv(home.dir),
      input: 'quay.io',
    });
    expect(helper.code, helper.stdout + helper.stderr).toBe(0);
    expect(JSON.parse(helper.stdout)).toMatchObject({ Username: 'robot+ci', Secret: REGISTRY_PASSWORD });
    await expect
      .poll(() => list.locator('[data-registry="quay"] .last-use').innerText(), { timeout: 10_000 })
      .toMatch(/^last asked by .+: served$/);
    expect(await page.content()).not.toContain(REGISTRY_PASSWORD);
    await list.screenshot({ path: path.join(SHOTS, 'webui-main-registries.png') });
    await open('Profiles');
  });

  it('removes the profile after asking, and it disappears from the list and config.yaml', async () => {
    await page.locator('[data-profile="lab"]').getByRole('link', { name: 'lab' }).click();
    const item = page.locator('section[aria-label="profile lab"]');
    await item.locator('button', { hasText: 'Remove…' }).click();
    const confirm = item.locator('[role="group"][aria-label="remove lab?"]');
    await confirm.waitFor({ timeout: 5_000 });
    await page.screenshot({ path: path.join(SHOTS, 'webui-main-remove-confirm.png'), fullPage: true });
    await confirm.locator('button', { hasText: 'Remove' }).click();
    // Once removed, the page goes back to the list, where it is no more.
    await page.locator('section[aria-label="profile list"]').waitFor({ timeout: 10_000 });
    await expect.poll(() => page.locator('[data-profile="lab"]').count(), { timeout: 10_000 }).toBe(0);
    expect(await configText()).not.toContain('lab');
    expect(await configText()).toContain('# written by hand');
    await page.screenshot({ path: path.join(SHOTS, 'webui-main-removed.png'), fullPage: true });
  });
});
