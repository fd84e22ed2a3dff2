import { describe, expect, it } from 'vitest';
import { CredentialCache } from '../../../src/main/cache/credentialCache.js';
import { credentialCacheKey } from '../../../src/main/cache/cacheKey.js';
import type { Credential } from '../../../src/shared/credential.js';
import { FakeClock } from '../../support/fakes/fakeClock.js';

const MINUTE = 60_000;

function countingFetch(clock: FakeClock, lifetimeMs: number | undefined) {
  let calls = 0;
  const fetch = async (): Promise<Credential> => {
    calls++;
    return {
      token: `token-${calls}`,
      ...(lifetimeMs !== undefined ? { expiresAt: new Date(clock.now() + lifetimeMs) } : {}),
    };
  };
  return { fetch, calls: () => calls };
}

describe('CredentialCache', () => {
  const key = credentialCacheKey('prod', undefined);

  it('serves a cached credential until it nears expiry, then fetches anew', async () => {
    const clock = new FakeClock();
    const cache = new CredentialCache(clock);
    const source = countingFetch(clock, 60 * MINUTE);
    expect(await cache.get(key, source.fetch)).toEqual({
      credential: expect.objectContaining({ token: 'token-1' }),
      source: 'provider',
    });
    clock.advance(30 * MINUTE);
    expect((await cache.get(key, source.fetch)).source).toBe('cache');
    clock.advance(30 * MINUTE);
    const after = await cache.get(key, source.fetch);
    expect(after.source).toBe('provider');
    expect(after.credential.token).toBe('token-2');
    expect(source.calls()).toBe(2);
  });

  it('makes one provider call for 100 concurrent callers on a cold cache', async () => {
    const clock = new FakeClock();
    const cache = new CredentialCache(clock);
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const fetch = async (): Promise<Credential> => {
      calls++;
      await gate;
      return { token: 'shared' };
    };
    const callers = Array.from({ length: 100 }, () => cache.get(key, fetch));
    release();
    const answers = await Promise.all(callers);
    expect(calls).toBe(1);
    expect(new Set(answers.map((a) => a.credential.token))).toEqual(new Set(['shared']));
  });

  it('gives every waiter the same failure, and tries again on the next call', async () => {
    const clock = new FakeClock();
    const cache = new CredentialCache(clock);
    let calls = 0;
    const failing = async (): Promise<Credential> => {
      calls++;
      throw new Error('IdP down');
    };
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => cache.get(key, failing)));
    expect(results.every((r) => r.status === 'rejected' && (r.reason as Error).message === 'IdP down')).toBe(true);
    expect(calls).toBe(1);
    expect(cache.describe('prod').lastError).toBe('IdP down');
    await expect(cache.get(key, failing)).rejects.toThrow('IdP down');
    expect(calls).toBe(2);
  });

  it('refreshes ahead of expiry in the background while serving the cached credential', async () => {
    const clock = new FakeClock();
    const cache = new CredentialCache(clock);
    const source = countingFetch(clock, 60 * MINUTE);
    await cache.get(key, source.fetch);
    clock.advance(56 * MINUTE);
    const during = await cache.get(key, source.fetch);
    expect(during).toMatchObject({ source: 'cache', credential: { token: 'token-1' } });
    await Promise.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(source.calls()).toBe(2);
    expect((await cache.get(key, source.fetch)).credential.token).toBe('token-2');
  });

  it('never hands out a credential inside the expiry margin', async () => {
    const clock = new FakeClock();
    const cache = new CredentialCache(clock, { expiryMarginMs: 30_000, refreshAheadMs: 0, maxEntries: 10 });
    const source = countingFetch(clock, 10 * MINUTE);
    await cache.get(key, source.fetch);
    clock.advance(10 * MINUTE - 29_000);
    expect((await cache.get(key, source.fetch)).source).toBe('provider');
  });

  it('keeps credentials without expiry until forgotten', async () => {
    const clock = new FakeClock();
    const cache = new CredentialCache(clock);
    const source = countingFetch(clock, undefined);
    await cache.get(key, source.fetch);
    clock.advance(1000 * 24 * 60 * MINUTE);
    expect((await cache.get(key, source.fetch)).source).toBe('cache');
    cache.forget('prod');
    expect((await cache.get(key, source.fetch)).source).toBe('provider');
  });

  it('does not store an answer that arrives after the profile was forgotten', async () => {
    const clock = new FakeClock();
    const cache = new CredentialCache(clock);
    let release!: () => void;
    const slow = () => new Promise<Credential>((resolve) => (release = () => resolve({ token: 'stale' })));
    const pending = cache.get(key, slow);
    cache.forget('prod');
    release();
    await pending;
    expect(cache.describe('prod').cached).toBe(false);
  });

  it('keys credentials by cluster, so two clusters never share one', async () => {
    const clock = new FakeClock();
    const cache = new CredentialCache(clock);
    const source = countingFetch(clock, undefined);
    const a = credentialCacheKey('prod', { server: 'https://a.example' });
    const b = credentialCacheKey('prod', { server: 'https://b.example' });
    expect(a).not.toBe(b);
    expect(credentialCacheKey('prod', { server: 'https://a.example', 'tls-server-name': undefined })).toBe(a);
    await cache.get(a, source.fetch);
    expect((await cache.get(b, source.fetch)).credential.token).toBe('token-2');
  });

  it('evicts the oldest entries beyond its size bound', async () => {
    const clock = new FakeClock();
    const cache = new CredentialCache(clock, { expiryMarginMs: 0, refreshAheadMs: 0, maxEntries: 2 });
    const source = countingFetch(clock, undefined);
    for (const name of ['a', 'b', 'c']) await cache.get(credentialCacheKey(name, undefined), source.fetch);
    expect(cache.describe('a').cached).toBe(false);
    expect(cache.describe('c').cached).toBe(true);
  });
});

describe('CredentialCache and identities', () => {
  it("drops the profile's credentials for other clusters when the identity changes", async () => {
    const clock = new FakeClock();
    const cache = new CredentialCache(clock);
    const a = credentialCacheKey('dev', { server: 'https://a' });
    const b = credentialCacheKey('dev', { server: 'https://b' });
    const other = credentialCacheKey('prod', { server: 'https://a' });
    await cache.get(a, async () => ({ token: 'alice-a', identity: 'iss alice' }));
    await cache.get(other, async () => ({ token: 'alice-prod', identity: 'iss alice' }));
    await cache.get(b, async () => ({ token: 'bob-b', identity: 'iss bob' }));
    let refetched = 0;
    const again = await cache.get(a, async () => (refetched++, { token: 'bob-a', identity: 'iss bob' }));
    expect(again.credential.token).toBe('bob-a');
    expect(refetched).toBe(1);
    expect((await cache.get(other, async () => ({ token: 'x' }))).source).toBe('cache');
  });

  it('recalls failures from before a restart, never over a profile already served or failing anew', async () => {
    const clock = new FakeClock(0);
    const cache = new CredentialCache(clock);
    await cache.get(credentialCacheKey('served', undefined), async () => ({ token: 't' }) as Credential);
    await cache
      .get(credentialCacheKey('fresh', undefined), async () => Promise.reject(new Error('failed just now')))
      .catch(() => {});
    cache.recallFailures(
      new Map([
        ['old', 'failed before the restart'],
        ['served', 'stale'],
        ['fresh', 'stale'],
      ]),
    );
    expect(cache.describe('old').lastError).toBe('failed before the restart');
    expect(cache.describe('served').lastError).toBeNull();
    expect(cache.describe('fresh').lastError).toBe('failed just now');
    await cache.get(credentialCacheKey('old', undefined), async () => ({ token: 'works now' }) as Credential);
    expect(cache.describe('old').lastError).toBeNull();
  });

  describe('renew (kubecred refresh)', () => {
    const key = credentialCacheKey('prod', undefined);
    it('replaces the cached credential, and every other of the profile, once the new one comes', async () => {
      const clock = new FakeClock();
      const cache = new CredentialCache(clock);
      const source = countingFetch(clock, 60 * MINUTE);
      const other = credentialCacheKey('prod', { server: 'https://other.example' });
      await cache.get(key, source.fetch);
      await cache.get(other, source.fetch);
      expect((await cache.renew(key, source.fetch)).token).toBe('token-3');
      expect((await cache.get(key, source.fetch)).credential.token).toBe('token-3');
      expect((await cache.get(other, source.fetch)).source).toBe('provider');
    });

    it('a renewal that fails keeps serving the cached credential and marks the profile failed nowhere', async () => {
      const clock = new FakeClock();
      const cache = new CredentialCache(clock);
      const source = countingFetch(clock, 60 * MINUTE);
      await cache.get(key, source.fetch);
      const down = async (): Promise<Credential> => {
        throw new Error('cannot reach the issuer');
      };
      await expect(cache.renew(key, down)).rejects.toThrow('cannot reach the issuer');
      expect(await cache.get(key, down)).toEqual({
        credential: expect.objectContaining({ token: 'token-1' }),
        source: 'cache',
      });
      expect(cache.describe('prod')).toMatchObject({ cached: true, lastError: null });
    });

    it('with nothing cached, a failed renewal is the failure status shows', async () => {
      const cache = new CredentialCache(new FakeClock());
      await expect(
        cache.renew(key, async () => {
          throw new Error('cannot reach the issuer');
        }),
      ).rejects.toThrow();
      expect(cache.describe('prod')).toMatchObject({ cached: false, lastError: 'cannot reach the issuer' });
    });

    it('a logout while it runs wins: its answer is not cached', async () => {
      const clock = new FakeClock();
      const cache = new CredentialCache(clock);
      let finish!: (credential: Credential) => void;
      const renewal = cache.renew(key, () => new Promise<Credential>((resolve) => (finish = resolve)));
      cache.forget('prod');
      finish({ token: 'late' });
      await renewal;
      expect(cache.describe('prod').cached).toBe(false);
    });
  });
});
