import { describe, expect, it } from 'vitest';
import { RevocationCheck } from '../../../src/main/broker/revocationCheck.js';
import { FakeClock } from '../../support/fakes/fakeClock.js';

const CLUSTER = { server: 'https://cluster.example:6443' };

function harness(rejects = true) {
  const clock = new FakeClock();
  const probes: string[] = [];
  let dropped = 0;
  const check = new RevocationCheck({ rejects: async (_cluster, token) => (probes.push(token), rejects) }, clock);
  const serve = (
    pid: number | undefined,
    fromCache = true,
    parts: { token?: string | null; cluster?: typeof CLUSTER | null } = {},
  ) =>
    check.afterServe(
      {
        profile: 'p',
        callerPid: pid,
        cluster: parts.cluster === null ? undefined : CLUSTER,
        token: parts.token === null ? undefined : 't1',
        fromCache,
      },
      () => dropped++,
    );
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { clock, probes, serve, settle, dropped: () => dropped };
}

describe('RevocationCheck', () => {
  it('never probes a first ask; a repeat ask of the same process from the cache is probed, and a 401 drops the credential', async () => {
    const h = harness();
    h.serve(10, false);
    await h.settle();
    expect(h.probes).toEqual([]);
    h.serve(10);
    await h.settle();
    expect(h.probes).toEqual(['t1']);
    expect(h.dropped()).toBe(1);
  });

  it('keeps a credential the cluster accepts', async () => {
    const h = harness(false);
    h.serve(10);
    h.serve(10);
    await h.settle();
    expect(h.probes).toHaveLength(1);
    expect(h.dropped()).toBe(0);
  });

  it('probes a profile at most every few seconds, however many processes ask', async () => {
    const h = harness(false);
    for (const pid of [1, 2, 3]) {
      h.serve(pid);
      h.serve(pid);
    }
    await h.settle();
    expect(h.probes).toHaveLength(1);
    h.clock.advance(5_000);
    h.serve(1);
    await h.settle();
    expect(h.probes).toHaveLength(2);
  });

  it('forgets asks older than the repeat window, and skips what cannot be probed', async () => {
    const h = harness();
    h.serve(7);
    h.clock.advance(11_000);
    h.serve(7);
    h.serve(undefined);
    h.serve(undefined);
    h.serve(8, true, { token: null });
    h.serve(8, true, { token: null });
    h.serve(9, true, { cluster: null });
    h.serve(9, true, { cluster: null });
    await h.settle();
    expect(h.probes).toEqual([]);
  });
});
