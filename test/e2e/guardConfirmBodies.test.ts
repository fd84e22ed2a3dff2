import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAxeViolations } from '../support/axe.js';
import { buildRenderer, launchChromium, type TestChromium } from '../support/chromium.js';
import { startGuardedCluster, type GuardedCluster } from '../support/guardedCluster.js';
import { findKubectlBuilds, type KubectlResult } from '../support/kubectl.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { REPO_ROOT } from '../support/repo.js';

const KUBECTL = findKubectlBuilds().at(-1)!;
const SHOTS = process.env.KUBECRED_SHOTS ?? path.join(REPO_ROOT, 'test-results', 'screenshots');
const TOKEN = `bodies-${Date.now().toString(36)}-gina`;
const REPLICAS = '{"data":{"replicas":"3"}}';
const BACKDOOR = '{"data":{"image":"evil.example/backdoor:latest"}}';

// D6 (security-4): two PATCHes of one ConfigMap waited under a confirm rule with the same words
// and different bodies; one Allow applied both, one of them setting an attacker's image. Now
// each request is a prompt of its own that shows its patch, and each answer is for its own.
describe('a guard that asks: one answer per request, bound to the patch it shows', () => {
  let cluster: GuardedCluster;
  let chromium: TestChromium;
  let browser: RecordingBrowser;
  let browserDir: string;

  beforeAll(async () => {
    await buildRenderer();
    await mkdir(SHOTS, { recursive: true });
    browserDir = await mkdtemp(path.join(tmpdir(), 'kc-guard-bodies-'));
    browser = await recordingBrowser(browserDir);
    cluster = await startGuardedCluster({
      profile: 'prod',
      users: [{ token: TOKEN, user: 'gina', groups: ['ops'] }],
      kubectl: KUBECTL.path,
      guard: '{ rules: [{ name: ask before patches, action: confirm, verbs: [patch] }] }',
      broker: { args: ['--ui'], env: { KUBECRED_BROWSER: browser.command } },
    });
    expect((await cluster.admin(['create', 'configmap', 'keep', '--from-literal=a=1'])).code).toBe(0);
    chromium = await launchChromium({ width: 1280, height: 800 });
  }, 300_000);

  afterAll(async () => {
    await chromium?.close();
    await cluster?.stop();
    await rm(browserDir, { recursive: true, force: true });
  });

  const patch = (body: string) => cluster.kubectl(['patch', 'configmap', 'keep', '--type', 'merge', '-p', body]);
  const open = () => chromium.page.locator('dialog.prompt-kind-approval[open]');
  /** The dialog on top: the last one opened; the ones under it are inert until it closes. */
  const top = (): Locator => open().last();
  const dataOfKeep = async () => {
    const got = await cluster.admin(['get', 'configmap', 'keep', '-o', 'jsonpath={.data}']);
    expect(got.code, got.stderr).toBe(0);
    return JSON.parse(got.stdout) as Record<string, string>;
  };
  const shoot = async (name: string) => {
    for (const colorScheme of ['light', 'dark'] as const) {
      await chromium.page.emulateMedia({ colorScheme });
      await chromium.page.screenshot({ path: path.join(SHOTS, `${name}-${colorScheme}.png`) });
      expect(await seriousAxeViolations(chromium.page), `${name} in ${colorScheme}`).toEqual([]);
    }
    await chromium.page.emulateMedia({ colorScheme: 'light' });
  };

  it('two waiting PATCHes with different bodies are two prompts; Allow one, Deny the other: the server has only the allowed change', async () => {
    const replicas = patch(REPLICAS);
    const backdoor = patch(BACKDOOR);
    await browser.openIn(chromium.page, 0, 30_000);
    await expect.poll(() => open().count(), { timeout: 30_000 }).toBe(2);
    const words = await Promise.all([0, 1].map((n) => open().nth(n).innerText()));
    for (const text of words) {
      expect(text).toMatch(/kubectl \(pid \d+\) wants to patch configmaps "keep" in namespace "default"/);
      expect(text).toContain('Patch sent');
      expect(text).toContain('JSON merge patch');
      expect(text).toContain('PATCH /api/v1/namespaces/default/configmaps/keep');
    }
    // Each prompt shows its own patch, laid out to read, and only its own.
    expect(words.filter((t) => t.includes('"replicas": "3"') && !t.includes('evil.example'))).toHaveLength(1);
    expect(
      words.filter((t) => t.includes('"image": "evil.example/backdoor:latest"') && !t.includes('replicas')),
    ).toHaveLength(1);
    await shoot('guard-confirm-patch-1280x800');

    // Whichever is on top, the replicas patch is allowed and the backdoor declined.
    for (let answered = 0; answered < 2; answered++) {
      const dialog = top();
      const isBackdoor = (await dialog.innerText()).includes('evil.example');
      await dialog.getByRole('button', { name: isBackdoor ? 'Deny' : 'Allow once' }).click({ timeout: 5_000 });
      await expect.poll(() => open().count(), { timeout: 10_000 }).toBe(1 - answered);
    }
    const [allowed, declined] = (await Promise.all([replicas, backdoor])) as [KubectlResult, KubectlResult];
    process.stdout.write(
      `journey guard bodies: $ kubectl patch configmap keep -p '${REPLICAS}'  (Allow)  exit ${allowed.code}\n${allowed.stdout}${allowed.stderr}` +
        `$ kubectl patch configmap keep -p '${BACKDOOR}'  (Deny)  exit ${declined.code}\n${declined.stderr}`,
    );
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(declined.code).not.toBe(0);
    expect(declined.stderr).toContain('declined in Kubecred');
    // The server's word: the allowed change alone.
    expect(await dataOfKeep()).toEqual({ a: '1', replicas: '3' });
  });

  it('a long patch is cut with a note that says so, in a box that scrolls; Deny leaves the object as it was', async () => {
    const many = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`key-${i}`, `value number ${i}`]));
    const long = patch(JSON.stringify({ data: { ...many, image: 'evil.example/at-the-end:latest' } }));
    await expect.poll(() => open().count(), { timeout: 30_000 }).toBe(1);
    const text = await top().innerText();
    expect(text).toContain('"key-0": "value number 0"');
    expect(text).not.toContain('at-the-end');
    expect(text).toMatch(
      /Only the start of the body is shown; it is \d\.\d KiB in all\. Allow only if you know what the rest does\./,
    );
    await shoot('guard-confirm-long-patch-1280x800');
    await chromium.page.setViewportSize({ width: 440, height: 340 });
    await shoot('guard-confirm-long-patch-440x340');
    await chromium.page.setViewportSize({ width: 1280, height: 800 });
    await top().getByRole('button', { name: 'Deny' }).click({ timeout: 5_000 });
    const refused = await long;
    expect(refused.code).not.toBe(0);
    expect(await dataOfKeep()).toEqual({ a: '1', replicas: '3' });
  });
});
