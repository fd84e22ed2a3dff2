import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApprovalRequest } from '../../../src/main/core/uiPorts.js';
import { PromptQueue } from '../../../src/main/ui/promptQueue.js';
import { pendingPromptSchema, type PendingPrompt } from '../../../src/shared/api/prompts.js';

// D6 (security-4): two PATCHes of configmaps/keep waited with the same words and different
// bodies; one prompt answered both, and one of them set an attacker's image.
const ACTION = 'patch configmaps "keep" in namespace "default"';
const patch = (digest: string, preview: string, pid: number): ApprovalRequest => ({
  profile: 'prod',
  caller: { pid, name: 'curl' },
  guard: {
    rule: 'ask before patches',
    action: ACTION,
    request: {
      method: 'PATCH',
      path: '/api/v1/namespaces/default/configmaps/keep',
      query: '',
      queryTruncated: false,
      digest: digest.repeat(64),
      body: { bytes: preview.length, mediaType: 'application/merge-patch+json', text: true, preview, truncated: false },
    },
  },
});
const REPLICAS = '{"data":{"replicas":"3"}}';
const BACKDOOR = '{"data":{"image":"evil.example/backdoor:latest"}}';

type Approval = Extract<PendingPrompt, { kind: 'approval' }>;
const approvals = (queue: PromptQueue) => queue.list() as Approval[];
const showing = (queue: PromptQueue, preview: string) =>
  approvals(queue).find((p) => p.guard?.request?.body.preview === preview)!;

describe('a guard confirm prompt is one request, bound to its body', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('two waiting PATCHes with the same words and different bodies are two prompts, each showing its body', () => {
    const queue = new PromptQueue();
    void queue.askApproval(patch('a', REPLICAS, 29256));
    void queue.askApproval(patch('b', BACKDOOR, 29295));
    const open = approvals(queue);
    expect(open).toHaveLength(2);
    expect(open.map((p) => p.guard?.action)).toEqual([ACTION, ACTION]);
    expect(open.map((p) => p.guard?.request?.body.preview).sort()).toEqual([BACKDOOR, REPLICAS].sort());
    for (const view of open) {
      expect(view.waiting).toBe(1);
      expect(view.callers).toHaveLength(1);
      expect(pendingPromptSchema.parse(view)).toEqual(view);
    }
  });

  it('an Allow answers only its own request; the other waits for its own answer', async () => {
    const queue = new PromptQueue();
    const replicas = queue.askApproval(patch('a', REPLICAS, 29256));
    const backdoor = queue.askApproval(patch('b', BACKDOOR, 29295));
    const settled: string[] = [];
    void replicas.then(() => settled.push('replicas'));
    void backdoor.then(() => settled.push('backdoor'));

    expect(queue.answer(showing(queue, REPLICAS).id, { kind: 'approval', allow: true })).toBe(true);
    await expect(replicas).resolves.toEqual({ allow: true });
    await Promise.resolve();
    expect(settled).toEqual(['replicas']);
    expect(approvals(queue).map((p) => p.guard?.request?.body.preview)).toEqual([BACKDOOR]);

    expect(queue.answer(showing(queue, BACKDOOR).id, { kind: 'approval', allow: false })).toBe(true);
    await expect(backdoor).resolves.toEqual({ allow: false });
    expect(queue.list()).toEqual([]);
  });

  it('byte-identical requests are still one prompt each, said to be similar only in display', async () => {
    const queue = new PromptQueue();
    const first = queue.askApproval(patch('a', REPLICAS, 1));
    const second = queue.askApproval(patch('a', REPLICAS, 1));
    const other = queue.askApproval(patch('c', REPLICAS, 1));
    const open = approvals(queue);
    expect(open).toHaveLength(3);
    expect(open.map((p) => p.guard?.similar)).toEqual([1, 1, undefined]);
    for (const view of open) expect(pendingPromptSchema.parse(view)).toEqual(view);

    queue.answer(open[0]!.id, { kind: 'approval', allow: true });
    await expect(first).resolves.toEqual({ allow: true });
    // The twin still asks, and is no longer said to have one.
    expect(approvals(queue).map((p) => p.guard?.similar)).toEqual([undefined, undefined]);
    queue.close();
    await expect(second).resolves.toEqual({ allow: false });
    await expect(other).resolves.toEqual({ allow: false });
  });

  it('an identical request to another profile is no twin', () => {
    const queue = new PromptQueue();
    void queue.askApproval(patch('a', REPLICAS, 1));
    void queue.askApproval({ ...patch('a', REPLICAS, 1), profile: 'staging' });
    expect(approvals(queue).map((p) => p.guard?.similar)).toEqual([undefined, undefined]);
  });

  it('a credential approval still gathers every program of the profile in one prompt', () => {
    const queue = new PromptQueue();
    void queue.askApproval({ profile: 'prod', caller: { pid: 1, name: 'kubectl' } });
    void queue.askApproval({ profile: 'prod', caller: { pid: 2, name: 'k9s' } });
    expect(approvals(queue)).toHaveLength(1);
    expect(approvals(queue)[0]!.callers).toHaveLength(2);
  });
});
