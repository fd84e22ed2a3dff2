import { describe, expect, it } from 'vitest';
import { Approvals } from '../../../src/main/broker/approvals.js';
import type { ApprovalDecision, ApprovalRequest } from '../../../src/main/core/uiPorts.js';
import { FakeClock } from '../../support/fakes/fakeClock.js';

function scripted(decisions: ApprovalDecision[]) {
  const asked: ApprovalRequest[] = [];
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  return {
    asked,
    release,
    ui: {
      askApproval: async (request: ApprovalRequest) => {
        asked.push(request);
        await gate;
        return decisions.shift() ?? { allow: false as const };
      },
    },
  };
}

const request = (pid: number): ApprovalRequest => ({
  profile: 'prod',
  caller: { pid, name: 'k9s' },
  cluster: 'https://prod',
});

describe('Approvals', () => {
  it('never asks when the policy is never', async () => {
    const ui = scripted([]);
    ui.release();
    await new Approvals(ui.ui, new FakeClock()).check('never', request(1));
    expect(ui.asked).toHaveLength(0);
  });

  it('asks once per calling process, and many concurrent requests share one prompt', async () => {
    const ui = scripted([{ allow: true }]);
    const approvals = new Approvals(ui.ui, new FakeClock());
    const pending = Promise.all(Array.from({ length: 10 }, () => approvals.check('once-per-process', request(7))));
    ui.release();
    await pending;
    await approvals.check('once-per-process', request(7));
    expect(ui.asked).toHaveLength(1);
    await expect(approvals.check('once-per-process', request(8))).rejects.toThrow('was denied');
    expect(ui.asked).toHaveLength(2);
  });

  it('with always, a grant for N minutes holds for that caller only until it ends', async () => {
    const clock = new FakeClock();
    const ui = scripted([{ allow: true, forMinutes: 5 }, { allow: true }, { allow: false }]);
    ui.release();
    const approvals = new Approvals(ui.ui, clock);
    await approvals.check('always', request(1));
    clock.advance(4 * 60_000);
    await approvals.check('always', request(1));
    expect(ui.asked).toHaveLength(1);
    clock.advance(2 * 60_000);
    await approvals.check('always', request(1));
    clock.advance(11_000);
    await expect(approvals.check('always', request(1))).rejects.toMatchObject({
      code: 'denied',
      message: expect.stringContaining('k9s (pid 1)'),
    });
    expect(ui.asked).toHaveLength(3);
  });

  it('with always, Allow once covers the few calls of one command (kubectl asks twice), not the next command', async () => {
    const clock = new FakeClock();
    const ui = scripted([{ allow: true }, { allow: false }]);
    ui.release();
    const approvals = new Approvals(ui.ui, clock);
    await approvals.check('always', request(5));
    clock.advance(300);
    await approvals.check('always', request(5));
    expect(ui.asked).toHaveLength(1);
    await expect(approvals.check('always', request(6))).rejects.toThrow('denied');
    clock.advance(10_000);
    expect(ui.asked).toHaveLength(2);
  });

  it('forgets every grant on lock all', async () => {
    const ui = scripted([{ allow: true }, { allow: false }]);
    ui.release();
    const approvals = new Approvals(ui.ui, new FakeClock());
    await approvals.check('once-per-process', request(3));
    approvals.forgetAll();
    await expect(approvals.check('once-per-process', request(3))).rejects.toThrow('denied');
  });

  it('a grant belongs to one process: a new process that reuses the pid is asked again', async () => {
    const ui = scripted([{ allow: true }, { allow: false }]);
    ui.release();
    const starts = new Map([[9, '1000']]);
    const approvals = new Approvals(ui.ui, new FakeClock(), { startTime: async (pid) => starts.get(pid) });
    await approvals.check('once-per-process', request(9));
    await approvals.check('once-per-process', request(9));
    expect(ui.asked).toHaveLength(1);
    starts.set(9, '2000');
    await expect(approvals.check('once-per-process', request(9))).rejects.toThrow('denied');
    expect(ui.asked).toHaveLength(2);
  });

  it('never keeps a grant for a caller whose pid is unknown: the next unknown caller is asked again', async () => {
    const ui = scripted([{ allow: true }, { allow: false }]);
    ui.release();
    const approvals = new Approvals(ui.ui, new FakeClock());
    const unknown: ApprovalRequest = { profile: 'prod', caller: {} };
    await approvals.check('once-per-process', unknown);
    await expect(approvals.check('once-per-process', unknown)).rejects.toThrow('denied');
    expect(ui.asked).toHaveLength(2);
  });

  it('says a timeout is a timeout, not a denial, and says where to allow it next time', async () => {
    const ui = scripted([{ allow: false, timedOut: true }]);
    ui.release();
    await expect(new Approvals(ui.ui, new FakeClock()).check('always', request(4))).rejects.toMatchObject({
      code: 'timed-out',
      message: expect.stringMatching(/nobody answered the approval of k9s \(pid 4\)/),
      hint: expect.stringContaining('the page Kubecred opens in your browser'),
    });
  });
});
