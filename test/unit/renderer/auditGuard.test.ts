import { describe, expect, it } from 'vitest';
import {
  auditRows,
  guardText,
  isGuardChange,
  refusedByCluster,
  refusedByGuard,
} from '../../../src/renderer/auditRows.js';
import type { AuditEntry } from '../../../src/shared/api/webUiApi.js';

const at = (second: number) => new Date(Date.UTC(2026, 10, 27, 10, 0, 0) + second * 1000).toISOString();
const proxied = (second: number, status: number, guard?: AuditEntry['guard']): AuditEntry => ({
  time: at(second),
  profile: 'prod',
  caller: { client: 'kubecred-proxy' },
  outcome: guard && ['refused', 'declined', 'timed-out'].includes(guard.decision) ? 'denied' : 'served',
  request: { method: 'DELETE', path: '/api/v1/namespaces/default/pods/web', status },
  ...(guard ? { guard } : {}),
});
const time = (iso: string) => iso.slice(11, 19);

// Issue 33: the guard's refusals are its own, not the cluster's; its changes say what changed.
describe('the activity table and the guard', () => {
  it("tells the guard's 403 from the cluster's", () => {
    const guarded = proxied(0, 403, { decision: 'refused', rule: 'read-only' });
    expect(refusedByGuard(guarded)).toBe(true);
    expect(refusedByCluster(guarded)).toBe(false);
    expect(refusedByCluster(proxied(0, 403))).toBe(true);
    expect(refusedByGuard(proxied(0, 200, { decision: 'confirmed', rule: 'deletes' }))).toBe(false);
  });

  it('counts what the guard stopped in a burst apart from what the cluster refused', () => {
    const [row] = auditRows([
      proxied(3, 403, { decision: 'refused', rule: 'read-only' }),
      proxied(2, 403, { decision: 'declined', rule: 'deletes' }),
      proxied(2, 403, { decision: 'timed-out', rule: 'deletes' }),
      proxied(1, 403),
      proxied(0, 200),
    ]);
    expect(row).toMatchObject({ kind: 'proxied', served: 1, refusedByGuard: 3, refusedByCluster: 1, failed: 0 });
  });

  it('says what the guard did, and what changed it', () => {
    const change = (guard: AuditEntry['guard']): AuditEntry => ({
      time: at(0),
      profile: 'prod',
      caller: { client: 'kubecred' },
      outcome: 'served',
      guard,
    });
    const lifted = change({ decision: 'lifted', until: '2026-11-27T10:15:00.000Z' });
    expect(isGuardChange(lifted)).toBe(true);
    expect(guardText(lifted, time)).toBe('guard lifted by kubecred until 10:15:00');
    expect(guardText(change({ decision: 'back' }), time)).toBe('guard put back by kubecred');
    expect(guardText(proxied(0, 403, { decision: 'refused', rule: 'read-only' }), time)).toBe(
      'refused by the guard (rule “read-only”)',
    );
    expect(guardText(proxied(0, 403, { decision: 'declined', rule: 'deletes' }), time)).toBe(
      "refused at the guard's question (rule “deletes”)",
    );
    expect(guardText(proxied(0, 403, { decision: 'timed-out', rule: 'deletes' }), time)).toBe(
      "nobody answered the guard's question in time (rule “deletes”)",
    );
    expect(guardText(proxied(0, 200, { decision: 'confirmed', rule: 'deletes' }), time)).toBe(
      "allowed at the guard's question (rule “deletes”)",
    );
    expect(guardText(proxied(0, 200, { decision: 'unlocked' }), time)).toBe('passed unchecked: the guard was lifted');
    expect(guardText(proxied(0, 200, { decision: 'allowed', rule: 'read-only' }), time)).toBeNull();
    expect(isGuardChange(proxied(0, 200, { decision: 'unlocked' }))).toBe(false);
  });

  // Security review 4, D5: the trail names who changed the guard, as the kernel named them.
  it('names who lifted, put back, changed or removed the guard, and a lift nobody allowed', () => {
    const by = (
      guard: AuditEntry['guard'],
      caller: AuditEntry['caller'],
      outcome: AuditEntry['outcome'] = 'served',
    ) => ({
      time: at(0),
      profile: 'prod',
      caller,
      outcome,
      guard,
    });
    const node = { pid: 4242, name: 'node', path: '/usr/bin/node', client: 'cli-terminal' };
    const lifted = by({ decision: 'lifted', until: '2026-11-27T10:15:00.000Z' }, node);
    expect(guardText(lifted, time)).toBe('guard lifted by node (pid 4242) until 10:15:00');
    const page = { name: 'a Kubecred page (link of the broker, for an approval)', client: 'web-ui' };
    expect(guardText(by({ decision: 'removed' }, page), time)).toBe(
      'guard removed by a Kubecred page (link of the broker, for an approval)',
    );
    expect(guardText(by({ decision: 'changed', rules: 1 }, { name: 'the tray menu', client: 'tray' }), time)).toBe(
      'guard rules changed by the tray menu (1 rule)',
    );
    const refused = by({ decision: 'lift-refused' }, { pid: 666, name: 'python3', client: 'socket' }, 'denied');
    expect(guardText(refused, time)).toBe('guard not lifted for python3 (pid 666): not allowed');
    for (const entry of [
      lifted,
      refused,
      by({ decision: 'removed' }, page),
      by({ decision: 'changed', rules: 2 }, page),
    ])
      expect(isGuardChange(entry)).toBe(true);
    // A change is a row of its own, never folded into a burst of proxied requests.
    expect(auditRows([proxied(2, 200), lifted, proxied(1, 200)]).map((row) => row.kind)).toEqual([
      'record',
      'record',
      'record',
    ]);
  });
});
