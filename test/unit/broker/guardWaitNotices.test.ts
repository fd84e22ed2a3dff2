import { describe, expect, it } from 'vitest';
import type { PendingPrompt } from '../../../src/shared/api/prompts.js';
import { tellGuardWaits } from '../../../src/main/broker/guardWaitNotices.js';

const question = (id: string, pid: number | undefined, action: string): PendingPrompt => ({
  id,
  kind: 'approval',
  waiting: 0,
  expiresAt: '2026-12-07T18:00:00.000Z',
  profile: 'prod',
  guard: { rule: 'ask before deletes', action },
  caller: pid === undefined ? {} : { pid, name: 'kubectl' },
  callers: [pid === undefined ? {} : { pid, name: 'kubectl' }],
});

function source(initial: PendingPrompt[]) {
  let list = initial;
  const listeners = new Set<() => void>();
  return {
    list: () => list,
    onChange: (listener: () => void) => (listeners.add(listener), () => void listeners.delete(listener)),
    set(next: PendingPrompt[]) {
      list = next;
      for (const listener of listeners) listener();
    },
  };
}

describe('tellGuardWaits (N5: a held request reaches its terminal)', () => {
  it('tells each held request once, to the process that sent it, in printable words', () => {
    const told: Array<[number, string]> = [];
    const prompts = source([question('a', 4242, 'delete configmaps "kept"\u001b]0;owned\u0007')]);
    const stop = tellGuardWaits(
      prompts,
      (pid, line) => (told.push([pid, line]), true),
      () => '18:00:00',
    );
    prompts.set([...prompts.list(), question('b', undefined, 'delete pods "x"')]);
    prompts.set(prompts.list());
    expect(told).toHaveLength(1);
    expect(told[0]![0]).toBe(4242);
    expect(told[0]![1]).toBe(
      'kubecred: delete configmaps "kept" waits for your Allow (guard rule "ask before deletes" of profile prod): answer in the Kubecred window, or the page Kubecred opened in your browser; it is refused at 18:00:00 if nobody answers',
    );
    stop();
    prompts.set([question('c', 99, 'delete secrets "s"')]);
    expect(told).toHaveLength(1);
  });

  it('says nothing of questions that are not a guard holding a request (a PIN, an approval of a credential)', () => {
    const told: string[] = [];
    const plain = { ...question('p', 1, 'x') } as Extract<PendingPrompt, { kind: 'approval' }>;
    const { guard: _guard, ...withoutGuard } = plain;
    tellGuardWaits(source([withoutGuard as PendingPrompt]), (_pid, line) => (told.push(line), true));
    expect(told).toEqual([]);
  });
});
