import { describe, expect, it } from 'vitest';
import { auditRows, refusedByCluster } from '../../../src/renderer/auditRows.js';
import type { AuditEntry } from '../../../src/shared/api/webUiApi.js';

const at = (second: number) => new Date(Date.UTC(2026, 10, 27, 10, 0, 0) + second * 1000).toISOString();
const proxied = (second: number, status: number, profile = 'prod'): AuditEntry => ({
  time: at(second),
  profile,
  caller: { client: 'kubecred-proxy' },
  outcome: status >= 400 ? 'failed' : 'served',
  request: { method: 'GET', path: '/api/v1/namespaces', status },
});
const shim = (second: number, profile = 'prod'): AuditEntry => ({
  time: at(second),
  profile,
  caller: { client: 'shim', name: 'kubectl', pid: 42 },
  outcome: 'served',
});

// New-user round 3, N11: one `kubectl auth whoami` through the proxy wrote 6-7 rows, and an
// RBAC 403 showed as a Kubecred failure.
describe('the activity table: proxied bursts folded, the cluster told apart from Kubecred', () => {
  it("folds one profile's proxied requests within a minute and counts what the cluster said", () => {
    const rows = auditRows([proxied(30, 403), proxied(29, 200), proxied(28, 200), proxied(27, 502), shim(26)]);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ kind: 'proxied', profile: 'prod', served: 2, refusedByCluster: 1, failed: 1 });
    expect(rows[1]).toMatchObject({ kind: 'record', entry: { caller: { name: 'kubectl' } } });
  });

  it('starts a new burst for another profile, a gap over a minute, or a record between', () => {
    const rows = auditRows([
      proxied(200, 200),
      proxied(199, 200),
      proxied(100, 200),
      proxied(99, 200, 'stage'),
      proxied(98, 200, 'stage'),
      shim(97),
      proxied(96, 200),
    ]);
    expect(rows.map((r) => (r.kind === 'proxied' ? `${r.profile}x${r.entries.length}` : r.entry.profile))).toEqual([
      'prodx2',
      'prod',
      'stagex2',
      'prod',
      'prod',
    ]);
  });

  it("a 4xx is the cluster's no; a 5xx or a refusal without a status is not", () => {
    expect(refusedByCluster(proxied(0, 403))).toBe(true);
    expect(refusedByCluster(proxied(0, 404))).toBe(true);
    expect(refusedByCluster(proxied(0, 503))).toBe(false);
    expect(refusedByCluster({ ...shim(0), outcome: 'failed' })).toBe(false);
  });
});
