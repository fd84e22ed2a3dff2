import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, writeConfig } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { launchChromium, type TestChromium } from '../support/chromium.js';
import { writeExecKubeconfig } from '../support/kubeconfig.js';
import { newestKubectl, runKubectl } from '../support/kubectl.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';
import { JourneyTranscript } from '../support/journeyTranscript.js';

const GCLOUD_WORDS = 'You do not currently have an active account selected. Please run: gcloud auth login';

/**
 * Issue 26, item 4 (N4): a wrapped plugin that fails on every call (gke-gcloud-auth-plugin with
 * no gcloud account). Its profile says "failed" with the plugin's words, in `kubecred status`
 * and the window, never a green "ready"; and still "failed" after `kubecred restart`, until a
 * call succeeds. Real kubectl, the native shim, the web UI in Chromium.
 */
describe('journey: a plugin that fails every time', () => {
  let home: TempHome;
  let chromium: TestChromium;
  let browserStandIn: RecordingBrowser;
  let kubeconfig: string;
  let plugin: string;
  const env = () => ({ KUBECRED_BROWSER: browserStandIn.command });
  const { cli } = callersFor(() => home.dir, env);
  const kubectl = () =>
    runKubectl(newestKubectl().path, ['get', 'namespaces'], { kubeconfig, env: brokerEnv(home.dir) });
  const status = async () =>
    (JSON.parse((await cli(['status', '-o', 'json'])).stdout) as { profiles: Array<Record<string, unknown>> })
      .profiles[0]!;
  const openUi = async (index: number) => {
    expect((await cli(['ui'])).code).toBe(0);
    const page = await chromium.context.newPage();
    await browserStandIn.openIn(page, index);
    const row = page.locator('[data-profile="gke"]');
    await row.waitFor({ timeout: 10_000 });
    return { page, row };
  };

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    plugin = path.join(home.dir, 'gke-gcloud-auth-plugin');
    await writeFile(plugin, `#!/bin/sh\necho "ERROR: ${GCLOUD_WORDS}" >&2\nexit 1\n`, { mode: 0o755 });
    await writeConfig(home.dir, `profiles:\n  - { name: gke, provider: exec, command: ${plugin} }\n`);
    kubeconfig = await writeExecKubeconfig({
      path: path.join(home.dir, 'kubeconfig'),
      // Never reached: kubectl asks for its credential first.
      server: 'https://127.0.0.1:1',
      caPem: '',
      command: NATIVE_SHIM,
      args: ['credential', 'gke'],
      apiVersion: 'client.authentication.k8s.io/v1',
      env: { KUBECRED_HOME: home.dir },
    });
    browserStandIn = await recordingBrowser(home.dir);
    chromium = await launchChromium({ width: 1000, height: 700 });
  }, 60_000);

  afterAll(async () => {
    await cli(['stop']);
    await chromium?.close();
    await home?.cleanup();
  });

  it("says failed, with the plugin's own words, in kubectl, status and the window", async () => {
    const journey = new JourneyTranscript('A wrapped plugin that fails every time (gcloud with no account)');
    journey.did('kubectl get namespaces');
    const failed = await kubectl();
    journey.saw('kubectl stderr', failed.stderr);
    journey.did('kubecred status');
    journey.saw('kubecred status', (await cli(['status'])).stdout);
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toContain(GCLOUD_WORDS);
    const profile = await status();
    expect(profile.state).toBe('error');
    expect(profile.lastError).toContain(GCLOUD_WORDS);
    journey.did('kubecred ui');
    const { row, page } = await openUi(0);
    await expect.poll(() => row.innerText(), { timeout: 10_000 }).toMatch(/failed/);
    journey.saw('window, profile row', await row.innerText());
    expect(await row.innerText()).not.toMatch(/\bready\b/);
    expect(await row.innerText()).toContain('gcloud auth login');
    await page.close();
    await journey.save('failing-plugin');
  });

  it('after kubecred restart: still failed, saying when and why, until a call succeeds', async () => {
    const journey = new JourneyTranscript('A failing plugin after kubecred restart');
    journey.did('kubecred restart');
    const restarted = await cli(['restart']);
    expect(restarted.code, restarted.stderr).toBe(0);
    await expect.poll(async () => (await status()).state, { timeout: 10_000 }).toBe('error');
    expect((await status()).lastError).toMatch(/failed \(exit 1\) \(at .*, before the broker restarted/);
    const { row, page } = await openUi(1);
    await expect.poll(() => row.innerText(), { timeout: 10_000 }).toMatch(/failed/);
    expect(await row.innerText()).toContain('before the broker restarted');
    journey.did('kubecred ui');
    journey.saw('window, profile row', await row.innerText());
    await page.close();
    await journey.save('failing-plugin-restart');

    // gcloud auth login, as the words said: the plugin works now, and so does the profile.
    await writeFile(
      plugin,
      `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"works"}}'\n`,
      { mode: 0o755 },
    );
    const served = await callersFor(() => home.dir).credential('gke');
    expect(served.code, served.stderr).toBe(0);
    expect((await status()).state).toBe('ready');
  });

  it('removed, then added again by the same name: a new profile, without the old failure or callers (N7)', async () => {
    await writeFile(plugin, `#!/bin/sh\necho "ERROR: ${GCLOUD_WORDS}" >&2\nexit 1\n`, { mode: 0o755 });
    // The credential the plugin made before is dropped: the next call runs the failing plugin.
    expect((await cli(['lock'])).code).toBe(0);
    expect((await kubectl()).code).not.toBe(0);
    expect((await status()).state).toBe('error');
    const removed = await cli(['profile', 'rm', 'gke']);
    expect(removed.code, removed.stderr).toBe(0);
    // Added again by hand, word for word: the broker that ran all along has forgotten the old one.
    await writeConfig(home.dir, `profiles:\n  - { name: gke, provider: exec, command: ${plugin} }\n`);
    expect((await status()).state).not.toBe('error');
    expect((await status()).lastError ?? null).toBeNull();
    // A broker started afterwards reads the audit trail and stops at the removal.
    expect((await cli(['restart'])).code).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await status()).state).not.toBe('error');
    const trail = await readFile(path.join(home.dir, 'state', 'audit.jsonl'), 'utf8');
    const removal = trail
      .split('\n')
      .filter(Boolean)
      .map((text) => JSON.parse(text) as { profile: string; removed?: boolean; caller: { client: string } })
      .find((record) => record.removed);
    expect(removal).toMatchObject({ profile: 'gke' });
    const { row, page } = await openUi(2);
    expect(await row.innerText()).not.toMatch(/failed/);
    await row.getByRole('link', { name: 'gke' }).first().click();
    const lastCaller = page.locator('dt:has-text("Last caller") + dd');
    await expect.poll(() => lastCaller.innerText(), { timeout: 10_000 }).toBe('nobody yet');
    await page.close();
  });
});
