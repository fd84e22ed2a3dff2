import { afterEach, describe, expect, it } from 'vitest';
import type { ProfileConfig } from '../../../src/shared/config/schema.js';
import type { AuditRecord } from '../../../src/main/core/auditLog.js';
import { BrokerError } from '../../../src/main/core/brokerError.js';
import { silentLogger } from '../../../src/main/core/logger.js';
import type { ApprovalDecision, ApprovalRequest } from '../../../src/main/core/uiPorts.js';
import { GuardControl, type GuardAsker } from '../../../src/main/broker/guardControl.js';
import { GuardLifters } from '../../../src/main/broker/guardLifters.js';
import { GUARD_LIFT_RULE } from '../../../src/main/broker/guardLiftQuestion.js';
import { GuardUnlocks } from '../../../src/main/proxy/guardUnlocks.js';

const NOW = Date.UTC(2026, 11, 2, 9, 0, 0);
const prod = {
  name: 'prod',
  provider: 'static',
  proxy: { port: 6443, server: 'https://cluster.example' },
  guard: { rules: [{ action: 'read-only' }, { action: 'deny', resources: ['secrets'] }] },
} as unknown as ProfileConfig;

const kubectlInTerminal: GuardAsker = {
  caller: { pid: 4242, name: 'node', path: '/usr/bin/node' },
  client: 'cli-terminal',
  byThePerson: true,
};
const scriptWithoutTerminal: GuardAsker = {
  caller: { pid: 666, name: 'python3', path: '/usr/bin/python3.12' },
  client: 'socket',
  byThePerson: false,
};

function world(answer: (request: ApprovalRequest) => Promise<ApprovalDecision>) {
  const records: AuditRecord[] = [];
  const asked: ApprovalRequest[] = [];
  const unlocks = new GuardUnlocks({ now: () => NOW });
  const lifters = new GuardLifters();
  const guards = new GuardControl({
    unlocks,
    lifters,
    profileNamed: async (name) => {
      if (name !== 'prod') throw new BrokerError('not-found', `no profile "${name}"`);
      return prod;
    },
    audit: { append: async (record) => void records.push(record) },
    ui: { askApproval: async (request) => (asked.push(request), answer(request)) },
    clock: { now: () => NOW },
    logger: silentLogger,
  });
  return { guards, records, asked, unlocks, lifters };
}

let opened: GuardUnlocks[] = [];
afterEach(() => {
  opened.forEach((u) => u.close());
  opened = [];
});

// Issue 41 item 2, security review 4 D5: a lift is the person's act, and every change names who made it.
describe('GuardControl', () => {
  it('lifts at once for the person, and the audit names the program the kernel named, not "kubecred"', async () => {
    const { guards, records, asked, unlocks, lifters } = world(async () => ({ allow: false }));
    opened.push(unlocks);
    const state = await guards.off('prod', 15 * 60_000, kubectlInTerminal);
    expect(state).toEqual({ profile: 'prod', rules: 2, offUntil: '2026-12-02T09:15:00.000Z' });
    expect(asked).toEqual([]);
    expect(records).toEqual([
      {
        time: '2026-12-02T09:00:00.000Z',
        profile: 'prod',
        caller: { pid: 4242, name: 'node', path: '/usr/bin/node', client: 'cli-terminal' },
        outcome: 'served',
        guard: { decision: 'lifted', until: '2026-12-02T09:15:00.000Z' },
      },
    ]);
    expect(lifters.of('prod')).toBe('node (pid 4242)');
  });

  it('asks the person before a program without a terminal lifts it, naming that program and how long', async () => {
    const { guards, records, asked, unlocks } = world(async () => ({ allow: true }));
    opened.push(unlocks);
    await guards.off('prod', 15 * 60_000, scriptWithoutTerminal);
    expect(asked).toEqual([
      {
        profile: 'prod',
        caller: scriptWithoutTerminal.caller,
        guard: { rule: GUARD_LIFT_RULE, action: 'lift the guard for 15 min' },
      },
    ]);
    expect(unlocks.offUntil('prod')).toBeDefined();
    expect(records.map((r) => [r.caller, r.guard?.decision])).toEqual([
      [{ ...scriptWithoutTerminal.caller, client: 'socket' }, 'lifted'],
    ]);
  });

  it.each([
    ['the person denies', { allow: false } as const, 'denied', /was denied; the guard holds/],
    ['nobody answers', { allow: false, timedOut: true } as const, 'timed-out', /nobody allowed .* in time/],
  ])('holds when %s: nothing lifted, and the refusal is audited', async (_case, decision, code, words) => {
    const { guards, records, unlocks, lifters } = world(async () => decision);
    opened.push(unlocks);
    const refusal = await guards.off('prod', 12 * 3_600_000, scriptWithoutTerminal).catch((e: BrokerError) => e);
    expect(refusal).toBeInstanceOf(BrokerError);
    expect(refusal).toMatchObject({ code, message: expect.stringMatching(words) });
    expect((refusal as BrokerError).message).toContain('python3 (pid 666)');
    expect(unlocks.offUntil('prod')).toBeUndefined();
    expect(lifters.of('prod')).toBeUndefined();
    expect(records).toEqual([
      expect.objectContaining({
        outcome: 'denied',
        caller: { ...scriptWithoutTerminal.caller, client: 'socket' },
        guard: { decision: 'lift-refused' },
      }),
    ]);
  });

  it('with no window to ask in, refuses and says what to do instead', async () => {
    const { guards, records, unlocks } = world(async () => {
      throw new BrokerError('denied', 'profile "prod" needs your approval and there is no window to ask in');
    });
    opened.push(unlocks);
    const refusal = (await guards.off('prod', 60_000, scriptWithoutTerminal).catch((e) => e)) as BrokerError;
    expect(refusal.message).toBe(
      'lifting the guard of "prod" needs your Allow, since python3 (pid 666) has no terminal Kubecred can vouch for, and there is no window to ask in',
    );
    expect(refusal.hint).toBe(
      'run kubecred guard prod off --for 15m in a terminal, or lift it in the Kubecred window (the tray)',
    );
    expect(unlocks.offUntil('prod')).toBeUndefined();
    expect(records.map((r) => r.guard?.decision)).toEqual(['lift-refused']);
  });

  it("names no program in the views for a lift made in the window or the tray: it was the person's there", async () => {
    const { guards, lifters, records, unlocks } = world(async () => ({ allow: false }));
    opened.push(unlocks);
    await guards.off('prod', 60_000, kubectlInTerminal);
    expect(lifters.of('prod')).toBe('node (pid 4242)');
    await guards.off('prod', 60_000, { caller: { name: 'the tray menu' }, client: 'tray', byThePerson: true });
    expect(lifters.of('prod')).toBeUndefined();
    expect(records.at(-1)).toMatchObject({
      caller: { name: 'the tray menu', client: 'tray' },
      guard: { decision: 'lifted' },
    });
  });

  it('puts a guard back for anyone, without asking, and audits who', async () => {
    const { guards, records, asked, unlocks, lifters } = world(async () => ({ allow: true }));
    opened.push(unlocks);
    await guards.off('prod', 60_000, kubectlInTerminal);
    await guards.on('prod', scriptWithoutTerminal);
    expect(asked).toEqual([]);
    expect(unlocks.offUntil('prod')).toBeUndefined();
    expect(lifters.of('prod')).toBeUndefined();
    expect(records.at(-1)).toMatchObject({
      caller: { pid: 666, name: 'python3', client: 'socket' },
      guard: { decision: 'back' },
    });
  });

  it('audits a rule change with its count, and a removal, with who made them', async () => {
    const { guards, records, unlocks } = world(async () => ({ allow: true }));
    opened.push(unlocks);
    const page: GuardAsker = { caller: { name: 'a Kubecred page' }, client: 'web-ui', byThePerson: true };
    await guards.rulesChanged('prod', 3, page);
    await guards.rulesChanged('prod', null, page);
    expect(records.map((r) => [r.caller, r.guard])).toEqual([
      [
        { name: 'a Kubecred page', client: 'web-ui' },
        { decision: 'changed', rules: 3 },
      ],
      [{ name: 'a Kubecred page', client: 'web-ui' }, { decision: 'removed' }],
    ]);
  });

  it('a lift the audit trail cannot keep is undone, and says so: no silent lift', async () => {
    const warnings: string[] = [];
    const unlocks = new GuardUnlocks({ now: () => NOW });
    opened.push(unlocks);
    const lifters = new GuardLifters();
    const guards = new GuardControl({
      unlocks,
      lifters,
      profileNamed: async () => prod,
      audit: { append: async () => Promise.reject(new Error('disk full')) },
      ui: { askApproval: async () => ({ allow: false }) },
      clock: { now: () => NOW },
      logger: { ...silentLogger, warn: (message) => void warnings.push(message) },
    });
    await expect(guards.off('prod', 60_000, kubectlInTerminal)).rejects.toMatchObject({
      message: 'the guard of "prod" stays on: its lift could not be written to the audit trail',
    });
    expect(unlocks.offUntil('prod')).toBeUndefined();
    expect(lifters.of('prod')).toBeUndefined();
    expect(warnings).toEqual(['audit log write failed']);
  });
});
