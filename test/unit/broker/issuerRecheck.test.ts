import { describe, expect, it } from 'vitest';
import { IssuerRecheck } from '../../../src/main/broker/issuerRecheck.js';
import type { Validity } from '../../../src/main/providers/provider.js';
import { fetchHttp } from '../../../src/main/providers/keystone/postJson.js';
import { validateKeystoneToken } from '../../../src/main/providers/keystone/tokenValidation.js';
import { FakeClock } from '../../support/fakes/fakeClock.js';

function harness(verdict: () => Promise<Validity> = async () => 'revoked') {
  const clock = new FakeClock();
  const recheck = new IssuerRecheck(clock);
  let checks = 0;
  let dropped = 0;
  const serve = (pid: number | undefined, fromCache = true, profile = 'p') =>
    recheck.afterServe(
      { profile, callerPid: pid, fromCache },
      () => (checks++, verdict()),
      () => dropped++,
    );
  const settle = () => recheck.settled('p');
  return { clock, recheck, serve, settle, checks: () => checks, dropped: () => dropped };
}

describe('IssuerRecheck', () => {
  it('never checks a first ask; the same process asking again for a cached credential is checked, and "revoked" drops it', async () => {
    const h = harness();
    h.serve(10);
    await h.settle();
    expect(h.checks()).toBe(0);
    h.serve(10);
    await h.settle();
    expect([h.checks(), h.dropped()]).toEqual([1, 1]);
  });

  it('keeps a credential the issuer honours or cannot judge', async () => {
    for (const verdict of ['valid', 'unknown'] as const) {
      const h = harness(async () => verdict);
      h.serve(10);
      h.serve(10);
      await h.settle();
      expect([h.checks(), h.dropped()]).toEqual([1, 0]);
    }
    const failing = harness(() => Promise.reject(new Error('down')));
    failing.serve(10);
    failing.serve(10);
    await failing.settle();
    expect(failing.dropped()).toBe(0);
  });

  it('asks at most every few seconds per profile, and not for a fresh credential, another process or an unknown caller', async () => {
    const h = harness(async () => 'valid');
    h.serve(10, false);
    h.serve(11);
    h.serve(undefined);
    h.serve(undefined);
    await h.settle();
    expect(h.checks()).toBe(0);
    h.serve(10);
    h.serve(11);
    await h.settle();
    expect(h.checks()).toBe(1);
    h.clock.advance(4_000);
    h.serve(10);
    expect(h.checks()).toBe(1);
    h.clock.advance(1_500);
    h.serve(10);
    await h.settle();
    expect(h.checks()).toBe(2);
    // Another profile has its own budget.
    h.serve(10, true, 'q');
    h.serve(10, true, 'q');
    expect(h.checks()).toBe(3);
  });

  it('forgets a process after 10 s: its next ask is a first ask again', async () => {
    const h = harness();
    h.serve(10);
    h.clock.advance(11_000);
    h.serve(10);
    await h.settle();
    expect(h.checks()).toBe(0);
  });

  it('makes a caller that asks while a check runs wait for the verdict, so it is never served the token being dropped', async () => {
    let answer!: (validity: Validity) => void;
    const h = harness(() => new Promise((resolve) => (answer = resolve)));
    h.serve(10);
    h.serve(10);
    let waited = false;
    const next = h.settle().then(() => (waited = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(waited).toBe(false);
    answer('revoked');
    await next;
    expect(h.dropped()).toBe(1);
  });
});

describe('validateKeystoneToken', () => {
  const answering = (status: number) => ({ http: fetchHttp(async () => new Response('{}', { status })) });

  it('asks Keystone with the token as caller and subject, in headers only', async () => {
    const seen: Headers[] = [];
    const urls: string[] = [];
    const http = fetchHttp(
      async (url, init) => (
        urls.push(String(url)),
        seen.push(new Headers(init?.headers)),
        new Response('{}', { status: 200 })
      ),
    );
    expect(
      await validateKeystoneToken(http, 'https://keystone.example/v3', 'gAAAA-tok', new AbortController().signal),
    ).toBe('valid');
    expect(seen[0]?.get('x-auth-token')).toBe('gAAAA-tok');
    expect(seen[0]?.get('x-subject-token')).toBe('gAAAA-tok');
    expect(urls[0]).toBe('https://keystone.example/v3/auth/tokens?nocatalog');
  });

  it('reads 401 and 404 as revoked, anything else as unknown', async () => {
    const signal = new AbortController().signal;
    for (const [status, validity] of [
      [401, 'revoked'],
      [404, 'revoked'],
      [403, 'unknown'],
      [500, 'unknown'],
      [503, 'unknown'],
    ] as const) {
      expect(await validateKeystoneToken(answering(status).http, 'https://k/v3', 't', signal), String(status)).toBe(
        validity,
      );
    }
    const down = fetchHttp(() =>
      Promise.reject(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } })),
    );
    expect(await validateKeystoneToken(down, 'https://k/v3', 't', signal)).toBe('unknown');
  });
});
