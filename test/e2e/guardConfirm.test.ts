import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAxeViolations } from '../support/axe.js';
import { buildRenderer, launchChromium, type TestChromium } from '../support/chromium.js';
import { startGuardedCluster, type GuardedCluster } from '../support/guardedCluster.js';
import { findKubectlBuilds } from '../support/kubectl.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { REPO_ROOT } from '../support/repo.js';

const KUBECTL = findKubectlBuilds().at(-1)!;
const SHOTS = process.env.KUBECRED_SHOTS ?? path.join(REPO_ROOT, 'test-results', 'screenshots');
const TOKEN = `confirm-${Date.now().toString(36)}-gina`;

// Issue 33: a confirm rule stops a matching request in the proxy until the user answers in the
// window the broker opened in the real browser; it names the program, the verb, the resource
// and the namespace. Allow lets that one request through; Deny refuses it with the rule's name.
describe('a guard that asks: kubectl delete waits for Allow or Deny in the browser', () => {
  let cluster: GuardedCluster;
  let chromium: TestChromium;
  let browser: RecordingBrowser;
  let browserDir: string;

  beforeAll(async () => {
    await buildRenderer();
    await mkdir(SHOTS, { recursive: true });
    browserDir = await mkdtemp(path.join(tmpdir(), 'kc-guard-browser-'));
    browser = await recordingBrowser(browserDir);
    cluster = await startGuardedCluster({
      profile: 'prod',
      users: [{ token: TOKEN, user: 'gina', groups: ['ops'] }],
      kubectl: KUBECTL.path,
      guard: '{ rules: [{ name: ask before deletes, action: confirm, verbs: [delete] }] }',
      broker: { args: ['--ui'], env: { KUBECRED_BROWSER: browser.command } },
    });
    for (const name of ['first', 'second']) expect((await cluster.admin(['create', 'configmap', name])).code).toBe(0);
    chromium = await launchChromium({ width: 1280, height: 800 });
  }, 300_000);

  afterAll(async () => {
    await chromium?.close();
    await cluster?.stop();
    await rm(browserDir, { recursive: true, force: true });
  });

  const dialog = () => chromium.page.getByRole('dialog', { name: 'Allow this request to prod?' });

  it('a read needs no answer; a delete opens one dialog naming kubectl, the verb, the resource and the namespace; Allow lets it through', async () => {
    const read = await cluster.kubectl(['get', 'configmap', 'first', '-o', 'name']);
    expect(read.stdout.trim()).toBe('configmap/first');
    const deleting = cluster.kubectl(['delete', 'configmap', 'first']);
    await browser.openIn(chromium.page, 0, 30_000);
    await dialog().waitFor({ timeout: 30_000 });
    const words = await dialog().innerText();
    expect(words).toMatch(/kubectl \(pid \d+\) wants to delete configmaps "first" in namespace "default"/);
    expect(words).toContain('ask before deletes');
    expect(words).not.toContain('Allow for');
    expect(await seriousAxeViolations(chromium.page)).toEqual([]);
    await chromium.page.screenshot({ path: path.join(SHOTS, 'guard-confirm-1280x800.png') });
    await dialog().getByRole('button', { name: 'Allow once' }).click({ timeout: 5_000 });
    const deleted = await deleting;
    process.stdout.write(
      `journey guard confirm: $ kubectl delete configmap first  (Allow)  exit ${deleted.code}\n${deleted.stdout}${deleted.stderr}`,
    );
    expect(deleted.code, deleted.stderr).toBe(0);
    expect((await cluster.admin(['get', 'configmap', 'first'])).stderr).toMatch(/NotFound|not found/);
  });

  it('Deny refuses the request with the rule, and the object stays', async () => {
    const deleting = cluster.kubectl(['delete', 'configmap', 'second']);
    await dialog().waitFor({ timeout: 30_000 });
    await dialog().getByRole('button', { name: 'Deny' }).click();
    const refused = await deleting;
    process.stdout.write(
      `journey guard confirm: $ kubectl delete configmap second  (Deny)  exit ${refused.code}\n${refused.stderr}`,
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('Error from server (Forbidden)');
    expect(refused.stderr).toContain('rule "ask before deletes": confirm): declined in Kubecred');
    expect((await cluster.admin(['get', 'configmap', 'second', '-o', 'name'])).stdout.trim()).toBe('configmap/second');
    const audit = await readFile(path.join(cluster.home.dir, 'state', 'audit.jsonl'), 'utf8');
    expect(audit).toContain('"guard":{"decision":"confirmed","rule":"ask before deletes"}');
    expect(audit).toContain('"guard":{"decision":"declined","rule":"ask before deletes"}');
  });
});
