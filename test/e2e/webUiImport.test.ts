import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiStandIn, type ApiStandIn } from '../support/apiServer.js';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { buildRenderer, launchChromium, type TestChromium } from '../support/chromium.js';
import { writeKubeconfigFixture } from '../support/kubeconfig.js';
import { findKubectlBuilds, runKubectl } from '../support/kubectl.js';
import { createTestPki } from '../support/pki.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { REPO_ROOT, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const TOKEN = 'kc-wizard-token-6d8f0b2c4e';
const SHOTS = path.join(REPO_ROOT, 'test-results', 'screenshots');
const KUBECTL = findKubectlBuilds().at(-1)!;

describe('the import wizard in the main window (kubecred daemon --ui)', () => {
  let home: TempHome;
  let broker: TestBroker;
  let api: ApiStandIn;
  let chromium: TestChromium;
  let page: Page;
  let browserStandIn: RecordingBrowser;
  let kubeconfig: string;

  beforeAll(async () => {
    assertBuilt({ shim: true });
    await buildRenderer();
    home = await makeTempHome();
    const pki = await createTestPki(path.join(home.dir, 'pki'));
    api = await startApiStandIn({ pki, auth: { bearerToken: TOKEN } });
    await writeConfig(home.dir, 'profiles: []\n');
    await mkdir(path.join(home.dir, 'kube', 'tokens'), { recursive: true });
    await writeFile(path.join(home.dir, 'kube', 'tokens', 'deployer.token'), TOKEN, { mode: 0o600 });
    kubeconfig = await writeKubeconfigFixture('commented', path.join(home.dir, 'kube', 'config'), {
      SERVER: api.url,
      CA_B64: Buffer.from(pki.caPem).toString('base64'),
      TOKEN,
    });
    browserStandIn = await recordingBrowser(home.dir);
    broker = await startTestBroker(home.dir, { KUBECRED_BROWSER: browserStandIn.command, KUBECONFIG: kubeconfig }, [
      '--ui',
    ]);
    chromium = await launchChromium({ width: 900, height: 1300 });
    page = chromium.page;
  }, 180_000);

  afterAll(async () => {
    await chromium?.close();
    await broker?.stop();
    await api?.close();
    await home?.cleanup();
  });

  it('shows what will move and the diff, secrets redacted, and changes nothing yet', async () => {
    const before = await readFile(kubeconfig, 'utf8');
    await browserStandIn.openIn(page, 0, 10_000);
    await page
      .getByRole('link', { name: /^Import (my )?kubeconfig$/ })
      .first()
      .click({ timeout: 10_000 });
    const wizard = page.locator('section[aria-label="kubeconfig import"]');
    await wizard.locator('button', { hasText: 'Look at my kubeconfig' }).click();
    await wizard.locator('[data-move="deployer"]').waitFor({ timeout: 10_000 });
    expect(await wizard.locator('[data-move="deployer"]').innerText()).toMatch(
      /deployer\s+becomes a\s+static\s+profile named\s+deployer\s+into the secret store:\s+token/,
    );
    expect(await wizard.locator('[data-move="file-token"]').count()).toBe(1);
    // The diff waits behind its summary, as a person who checks each line opens it.
    await wizard.getByText(/line by line \(values hidden\)/).click();
    const diff = await wizard.locator('pre[aria-label="kubeconfig diff"]').innerText();
    expect(diff).toMatch(/^-\s+token: <redacted> # do not share$/m);
    expect(diff).toMatch(/^\+\s+command: \S+kubecred-shim$/m);
    expect(await page.content()).not.toContain(TOKEN);
    await page.screenshot({ path: path.join(SHOTS, 'webui-import-preview.png'), fullPage: true });
    expect(await readFile(kubeconfig, 'utf8')).toBe(before);
  });

  it('imports on confirmation; kubectl then works through Kubecred with the same kubeconfig', async () => {
    const wizard = page.locator('section[aria-label="kubeconfig import"]');
    await wizard.locator('button', { hasText: 'Import 2 users' }).click();
    const done = wizard.locator('[aria-label="import done"]');
    await done.waitFor({ timeout: 15_000 });
    expect(await done.innerText()).toMatch(
      /Moved 2 users into Kubecred[\s\S]*New profiles: deployer, file-token\.[\s\S]*still holds the old credentials: once kubectl works, kubecred import --prune-backups deletes it\.[\s\S]*To take this import back: kubecred import --undo[\s\S]*safe to delete: \S+deployer\.token/,
    );
    await page.screenshot({ path: path.join(SHOTS, 'webui-import-done.png'), fullPage: true });
    const text = await readFile(kubeconfig, 'utf8');
    expect(text).not.toContain(TOKEN);
    expect(text).toContain('# the staging cluster');
    await done.getByRole('link', { name: 'See the profiles' }).click();
    await page.locator('[data-profile="deployer"]').waitFor({ timeout: 10_000 });
    // New-user finding 19: each profile says which kubeconfig contexts use it.
    await expect
      .poll(() => page.locator('[data-profile="deployer"]').innerText(), { timeout: 10_000 })
      .toContain('used by context staging');
    expect(await page.locator('[data-profile="file-token"]').innerText()).toContain('used by context staging-file');
    // And its page names the API server those contexts reach, read from the same kubeconfig.
    await page.locator('[data-profile="deployer"] a').first().click();
    await expect
      .poll(() => page.locator('section[aria-label="profile deployer"] dl').innerText(), { timeout: 10_000 })
      .toMatch(new RegExp(`Clusters\\s+${api.url.replaceAll('.', '\\.')}`));
    await page.goBack();
    for (const context of ['staging', 'staging-file']) {
      const result = await runKubectl(KUBECTL.path, ['get', '--raw', '/version', '--context', context], {
        kubeconfig,
        env: { KUBECRED_HOME: home.dir },
      });
      expect(result.code, `${context}: ${result.stderr}`).toBe(0);
    }
    expect(broker.output()).not.toContain(TOKEN);
  });
});
