import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGuardedCluster, type GuardedCluster } from '../support/guardedCluster.js';
import { findKubectlBuilds } from '../support/kubectl.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { inTerminal, withoutTerminal } from '../support/terminal.js';

const KUBECTL = findKubectlBuilds().at(-1)!;
const TOKEN = `unanswered-${Date.now().toString(36)}-hana`;
// The window's questions wait this long here instead of two minutes (KUBECRED_PROMPT_TIMEOUT).
const PROMPT_TIMEOUT = '3s';

interface AuditRecord {
  readonly outcome: string;
  readonly guard?: { readonly decision: string; readonly rule?: string };
  readonly request?: { readonly verb?: string; readonly resource?: string; readonly name?: string };
}

// Issue 41, "a seam nobody tests": a confirm rule's question that nobody answers must reach
// kubectl as "nobody answered in time" and the audit trail as timed-out, not as "declined".
// The Go side was tested against a fake broker and the broker without the proxy, so the
// broker's `timedOut` was dropped between them unseen. Here both are real: kube-apiserver,
// `kubecred daemon`, the kubecred-proxy it starts, and kubectl.
describe('a guard question nobody answers, through the real broker and kubecred-proxy', () => {
  let cluster: GuardedCluster;
  let browser: RecordingBrowser;
  let browserDir: string;

  beforeAll(async () => {
    browserDir = await mkdtemp(path.join(tmpdir(), 'kc-unanswered-'));
    // The broker opens its page for the question here; nobody looks at it.
    browser = await recordingBrowser(browserDir);
    cluster = await startGuardedCluster({
      profile: 'prod',
      users: [{ token: TOKEN, user: 'hana', groups: ['ops'] }],
      kubectl: KUBECTL.path,
      guard: '{ rules: [{ name: ask before deletes, action: confirm, verbs: [delete] }] }',
      broker: { env: { KUBECRED_BROWSER: browser.command, KUBECRED_PROMPT_TIMEOUT: PROMPT_TIMEOUT } },
    });
    expect((await cluster.admin(['create', 'configmap', 'kept'])).code).toBe(0);
  }, 300_000);

  afterAll(async () => {
    await cluster?.stop();
    await rm(browserDir, { recursive: true, force: true });
  });

  it('kubectl is told nobody answered in time, the object stays, and the audit says timed-out', async () => {
    const started = Date.now();
    const deleting = await cluster.kubectl(['delete', 'configmap', 'kept']);
    process.stdout.write(
      `journey guard confirm: $ kubectl delete configmap kept  (nobody answers)  exit ${deleting.code}\n${deleting.stderr}`,
    );
    expect(deleting.code).not.toBe(0);
    expect(deleting.stderr).toContain('Error from server (Forbidden)');
    expect(deleting.stderr).toContain('rule "ask before deletes": confirm): nobody answered in Kubecred in time');
    expect(deleting.stderr).not.toContain('declined');
    // The question was really put (the broker opened its page) and waited its time out.
    expect((await browser.opened()).length).toBeGreaterThan(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
    expect((await cluster.admin(['get', 'configmap', 'kept', '-o', 'name'])).stdout.trim()).toBe('configmap/kept');

    const records = (await readFile(path.join(cluster.home.dir, 'state', 'audit.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as AuditRecord);
    expect(records).toContainEqual(
      expect.objectContaining({
        outcome: 'denied',
        guard: { decision: 'timed-out', rule: 'ask before deletes' },
        request: expect.objectContaining({ verb: 'delete', resource: 'configmaps', name: 'kept' }),
      }),
    );
    expect(records.some((record) => record.guard?.decision === 'declined')).toBe(false);
  }, 120_000);

  // New user review 4, N5: kubectl cannot print while the cluster has not answered, so a confirm
  // left its terminal silent until someone clicked. The broker writes the line there itself.
  it('kubectl in a terminal hears at once that the request waits for an Allow; a script reading stderr is not written to', async () => {
    const argv = [KUBECTL.path, '--kubeconfig', cluster.kubeconfig, 'delete', 'configmap', 'kept'];
    const env = { ...(process.env as Record<string, string>), ...cluster.env };
    const typed = inTerminal(argv, env);
    const told = await typed.waitFor(
      /waits for your Allow \(guard rule "ask before deletes" of profile prod\)/,
      10_000,
    );
    expect(typed.screen()).toMatch(/delete configmaps? .*kept.* waits for your Allow/);
    expect(typed.screen()).toMatch(/refused at \d\d:\d\d:\d\d if nobody answers/);
    const ended = await typed.exited;
    // Told before the refusal came: it is news while kubectl waits, not after.
    expect(told.afterMs).toBeLessThan(ended.afterMs - 1_000);
    expect(typed.screen()).toContain('nobody answered in Kubecred in time');

    const scripted = withoutTerminal(argv, env);
    await scripted.exited;
    expect(scripted.screen()).toContain('nobody answered in Kubecred in time');
    expect(scripted.screen()).not.toContain('waits for your Allow');
  }, 60_000);
});
