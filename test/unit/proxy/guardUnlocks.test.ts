import { afterEach, describe, expect, it, vi } from 'vitest';
import { GuardLifters } from '../../../src/main/broker/guardLifters.js';
import { GuardControl } from '../../../src/main/broker/guardControl.js';
import type { AuditRecord } from '../../../src/main/core/auditLog.js';
import { GuardUnlocks, MAX_GUARD_OFF_MS } from '../../../src/main/proxy/guardUnlocks.js';
import { describeGuardedRequest, guardedRequest } from '../../../src/main/proxy/guardConfirmation.js';
import { recordProxiedRequest } from '../../../src/main/proxy/proxyWiring.js';
import { guardWords } from '../../../src/shared/api/profileWords.js';
import { configSchema } from '../../../src/shared/config/schema.js';

const START = Date.parse('2026-11-25T12:00:00Z');
const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('lifting a guard for a while (issue 33)', () => {
  afterEach(() => void vi.useRealTimers());

  it('comes back by itself when the time is up, and says so to whoever listens', () => {
    vi.useFakeTimers({ now: START });
    const unlocks = new GuardUnlocks({ now: () => Date.now() });
    const heard: string[] = [];
    unlocks.onChange((profile) => heard.push(`${profile}:${unlocks.offUntil(profile) ? 'off' : 'on'}`));
    expect(unlocks.off('prod', 15 * 60_000).toISOString()).toBe('2026-11-25T12:15:00.000Z');
    expect(unlocks.offUntil('prod')?.toISOString()).toBe('2026-11-25T12:15:00.000Z');
    vi.advanceTimersByTime(15 * 60_000);
    expect(unlocks.offUntil('prod')).toBeUndefined();
    expect(heard).toEqual(['prod:off', 'prod:on']);
    unlocks.close();
  });

  it('the clock decides, not the timer: a late timer never makes an unlock last longer', () => {
    let now = START;
    const unlocks = new GuardUnlocks({ now: () => now });
    unlocks.off('prod', 60_000);
    now += 60_001;
    expect(unlocks.offUntil('prod')).toBeUndefined();
    unlocks.close();
  });

  it('refuses no time, a negative one and more than 12 hours; Lock all ends every unlock', () => {
    const unlocks = new GuardUnlocks({ now: () => START });
    for (const ms of [0, -5, Number.NaN, MAX_GUARD_OFF_MS + 1])
      expect(() => unlocks.off('prod', ms)).toThrow(/1 second up to 12 hours/);
    unlocks.off('prod', 60_000);
    unlocks.off('stage', 60_000);
    unlocks.forgetAll();
    expect([unlocks.offUntil('prod'), unlocks.offUntil('stage')]).toEqual([undefined, undefined]);
    expect(unlocks.on('prod')).toBe(false);
    unlocks.close();
  });

  it('kubecred guard: refuses a profile without a guard, audits a lift and a return, never an unchanged one', async () => {
    const config = configSchema.parse({
      profiles: [
        { name: 'prod', provider: 'static', proxy: { port: 47041, server: 'https://k8s.example' }, guard: 'read-only' },
        { name: 'dev', provider: 'static' },
      ],
    });
    const audit: AuditRecord[] = [];
    const unlocks = new GuardUnlocks({ now: () => START });
    const control = new GuardControl({
      unlocks,
      lifters: new GuardLifters(),
      profileNamed: async (name) => config.profiles.find((p) => p.name === name)!,
      audit: { append: async (record) => void audit.push(record) },
      ui: { askApproval: async () => ({ allow: false }) },
      clock: { now: () => START },
      logger,
    });
    const person = { caller: { pid: 4242, name: 'node' }, client: 'cli-terminal', byThePerson: true } as const;
    await expect(control.off('dev', 60_000, person)).rejects.toThrow('profile "dev" has no guard');
    expect(await control.state('prod')).toEqual({ profile: 'prod', rules: 1, offUntil: null });
    expect(await control.off('prod', 60_000, person)).toEqual({
      profile: 'prod',
      rules: 1,
      offUntil: '2026-11-25T12:01:00.000Z',
    });
    await control.on('prod', person);
    await control.on('prod', person);
    expect(audit.map((record) => record.guard)).toEqual([
      { decision: 'lifted', until: '2026-11-25T12:01:00.000Z' },
      { decision: 'back' },
    ]);
    unlocks.close();
  });

  it('every view says the same: on, with its rules; lifted, with the time left', () => {
    expect(guardWords({}, START)).toBeNull();
    expect(guardWords({ guard: { rules: 2, offUntil: null } }, START)).toBe('guard on (2 rules)');
    expect(guardWords({ guard: { rules: 1, offUntil: '2026-11-25T12:14:00Z' } }, START)).toBe(
      'guard lifted, back in 14 min',
    );
    expect(guardWords({ guard: { rules: 1, offUntil: '2026-11-25T11:00:00Z' } }, START)).toBe('guard on (1 rule)');
  });
});

describe("a guarded request in the proxy's words", () => {
  it('is said as the API would: verb, group-qualified resource and subresource, name, namespace, dry run', () => {
    const said = (raw: Record<string, unknown>) => describeGuardedRequest(guardedRequest(raw));
    expect(said({ verb: 'delete', resource: 'pods', namespace: 'default', name: 'web' })).toBe(
      'delete pods "web" in namespace "default"',
    );
    expect(
      said({ verb: 'patch', group: 'apps', resource: 'deployments', subresource: 'scale', name: 'web', dryRun: true }),
    ).toBe('patch deployments.apps/scale "web" (dry run)');
    expect(said({ verb: 'get', method: 'GET', path: '/version' })).toBe('GET /version');
    expect(said({ verb: 'delete', resource: 'namespaces', namespace: 'prod', name: 'prod' })).toBe(
      'delete namespaces "prod"',
    );
  });

  it('lands in the audit trail with its decision, refused ones as denied; junk from the proxy is left out', async () => {
    const records: AuditRecord[] = [];
    const audit = { append: async (record: AuditRecord) => void records.push(record) };
    const clock = { now: () => START };
    const base = { profile: 'prod', method: 'DELETE', path: '/api/v1/namespaces/default/pods/web', status: 403 };
    await recordProxiedRequest(audit, clock, {
      ...base,
      verb: 'delete',
      resource: 'pods',
      namespace: 'default',
      name: 'web',
      guard: { decision: 'refused', rule: 'read-only' },
    });
    await recordProxiedRequest(audit, clock, { ...base, status: 200, guard: { decision: 'made-up' }, verb: 7 });
    expect(records[0]).toMatchObject({
      outcome: 'denied',
      guard: { decision: 'refused', rule: 'read-only' },
      request: { verb: 'delete', resource: 'pods', namespace: 'default', name: 'web', status: 403 },
    });
    expect(records[1]).not.toHaveProperty('guard');
    expect(records[1]!.request).not.toHaveProperty('verb');
    expect(records[1]!.outcome).toBe('served');
    // A question nobody answered is a refusal of its own kind: denied, and said to have timed out.
    await recordProxiedRequest(audit, clock, { ...base, guard: { decision: 'timed-out', rule: 'deletes' } });
    expect(records[2]).toMatchObject({ outcome: 'denied', guard: { decision: 'timed-out', rule: 'deletes' } });
  });
});
