import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiStandIn, type ApiStandIn } from '../support/apiServer.js';
import { parse as parseYaml, parseDocument } from 'yaml';
import { seriousAxeViolations } from '../support/axe.js';
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
      /^staging \(user deployer\) becomes a static profile named deployer\s+into the secret store:\s+token$/,
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

  it('imports on confirmation: the kubeconfig keeps its comments and loses the token', async () => {
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
  });

  // Issue 28, item 7: the exec proxy, offered on the result screen for each new profile. It is an
  // option: the way on stays the one filled button, and nothing changes until a profile's button.
  it('offers the exec proxy for each new profile; turns it on for one, and shows a refusal in the broker’s words', async () => {
    const wizard = page.locator('section[aria-label="kubeconfig import"]');
    const offer = wizard.locator('section.import-proxy');
    expect(await offer.innerText()).toMatch(
      /Optional: route through the exec proxy\s+Nothing more is needed: kubectl works as it is\.[\s\S]*a copied kubeconfig grants nothing/,
    );
    expect(
      await offer
        .locator('[data-proxy-profile]')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-proxy-profile'))),
    ).toEqual(['deployer', 'file-token']);
    expect(await offer.getByRole('button', { name: 'Route through the exec proxy: deployer' }).count()).toBe(1);
    expect(await wizard.locator('button:not(.secondary), a.button:not(.secondary)').allInnerTexts()).toEqual([
      'See the profiles',
    ]);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: path.join(SHOTS, 'webui-import-proxy-offer-1280-light.png') });
    const before = await readFile(kubeconfig, 'utf8');

    const fileToken = offer.locator('[data-proxy-profile="file-token"]');
    await fileToken.getByRole('button', { name: /Route through the exec proxy/ }).click();
    const outcome = fileToken.locator('.proxy-row-outcome');
    await outcome.waitFor({ timeout: 15_000 });
    const line = await outcome.innerText();
    const on = /^✓\s*Context staging-file: kubectl → https:\/\/127\.0\.0\.1:(\d+) → (\S+)$/.exec(line);
    expect(on, line).not.toBeNull();
    const port = Number(on![1]);
    expect(on![2]).toBe(api.url);
    // The answer line has the focus the button had.
    expect(await outcome.evaluate((el) => el === document.activeElement)).toBe(true);

    // kubectl's file: that context now reaches the listener; the other one is as it was.
    const after = parseKubeconfig(await readFile(kubeconfig, 'utf8'));
    expect(after.server('staging-file')).toBe(`https://127.0.0.1:${port}`);
    expect(after.server('staging')).toBe(api.url);
    expect(await readFile(kubeconfig, 'utf8')).not.toBe(before);
    // config.yaml keeps the port and the real server for that profile only.
    const config = parseYaml(await readFile(path.join(home.dir, 'config.yaml'), 'utf8')) as {
      profiles: Array<{ name: string; proxy?: { port: number; server: string } }>;
    };
    expect(config.profiles.find((p) => p.name === 'file-token')?.proxy).toMatchObject({ port, server: api.url });
    expect(config.profiles.find((p) => p.name === 'deployer')?.proxy).toBeUndefined();

    // Someone edits the kubeconfig meanwhile: deployer's context loses its cluster. The broker
    // refuses, and the row says why in its words; the button stays for another try.
    const edited = await readFile(kubeconfig, 'utf8');
    await writeFile(kubeconfig, withContextCluster(edited, 'staging', 'gone'));
    const deployer = offer.locator('[data-proxy-profile="deployer"]');
    await deployer.getByRole('button', { name: /Route through the exec proxy/ }).click();
    const refusal = deployer.locator('[role="alert"]');
    await refusal.waitFor({ timeout: 15_000 });
    expect(await refusal.innerText()).toBe(
      'context "staging" names no cluster with a server. Check the context and its cluster in your kubeconfig',
    );
    expect(await deployer.getByRole('button', { name: /Route through the exec proxy/ }).isEnabled()).toBe(true);
    await writeFile(kubeconfig, edited);
    expect(broker.output()).not.toContain(TOKEN);

    // Both answers in both themes, in the large window and the small one.
    for (const [width, height] of [
      [1280, 800],
      [800, 600],
    ] as const) {
      await page.setViewportSize({ width, height });
      await offer.scrollIntoViewIfNeeded();
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        await page.screenshot({ path: path.join(SHOTS, `webui-import-proxy-${width}-${colorScheme}.png`) });
        expect(await seriousAxeViolations(page), `${width} ${colorScheme}`).toEqual([]);
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 900, height: 1300 });
  });

  it('leads on to the profiles; kubectl works through Kubecred with the same kubeconfig, one context through the proxy', async () => {
    const wizard = page.locator('section[aria-label="kubeconfig import"]');
    await wizard.getByRole('link', { name: 'See the profiles' }).click();
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

/** The kubeconfig's contexts and the server of each one's cluster. */
function parseKubeconfig(text: string): { server(context: string): string | undefined } {
  const doc = parseYaml(text) as {
    contexts: Array<{ name: string; context: { cluster: string } }>;
    clusters: Array<{ name: string; cluster: { server: string } }>;
  };
  return {
    server: (context) => {
      const cluster = doc.contexts.find((c) => c.name === context)?.context.cluster;
      return doc.clusters.find((c) => c.name === cluster)?.cluster.server;
    },
  };
}

/** The same kubeconfig text with `context` naming `cluster`, comments kept. */
function withContextCluster(text: string, context: string, cluster: string): string {
  const doc = parseDocument(text);
  const index = (doc.toJS() as { contexts: Array<{ name: string }> }).contexts.findIndex((c) => c.name === context);
  doc.setIn(['contexts', index, 'context', 'cluster'], cluster);
  return doc.toString();
}
