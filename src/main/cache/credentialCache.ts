import type { Credential } from '../../shared/credential.js';
import type { Clock } from '../core/clock.js';
import { BrokerError } from '../core/brokerError.js';
import { UserDeclined } from '../core/userDeclined.js';
import { profileOfCacheKey } from './cacheKey.js';
import { ChangeSignal } from '../core/changeSignal.js';

export interface CacheTiming {
  /** A credential is not handed out closer than this to its expiry (clock skew, requests in flight). */
  readonly expiryMarginMs: number;
  /** Start a background refresh this long before expiry, so callers rarely wait. */
  readonly refreshAheadMs: number;
  readonly maxEntries: number;
}

export const DEFAULT_CACHE_TIMING: CacheTiming = {
  expiryMarginMs: 30_000,
  refreshAheadMs: 5 * 60_000,
  maxEntries: 1000,
};

interface Failure {
  readonly reason: string;
  /** The profile's secret was not in its store: nothing fails but a secret nobody stored yet. */
  readonly secretMissing: boolean;
}

interface Entry {
  readonly credential: Credential;
  readonly usableUntil: number;
  readonly refreshFrom: number;
}

export type CacheSource = 'cache' | 'provider';
export type Fetch = () => Promise<Credential>;

/**
 * Credentials in broker memory only. One provider call per key at a time however many
 * callers wait (single flight); refresh ahead of expiry; forget() wins over a fetch that
 * was already running, so a logout is never undone by a late answer.
 *
 * Its single flight is a plain promise per key, not SingleFlight (providers/singleFlight.ts),
 * because the two end differently: a fetch here is never aborted when its callers leave (the
 * answer still fills the cache for the next one), and forget() detaches it by generation;
 * SingleFlight aborts a login once every caller has left or one cancels for all.
 */
export class CredentialCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<Credential>>();
  private readonly generations = new Map<string, number>();
  private readonly failures = new Map<string, Failure>();
  /** Told when a profile's state may have changed: a credential stored or dropped, a fetch failed. */
  readonly changes = new ChangeSignal();

  constructor(
    private readonly clock: Clock,
    private readonly timing: CacheTiming = DEFAULT_CACHE_TIMING,
    private readonly onBackgroundError: (key: string, error: unknown) => void = () => {},
  ) {}

  async get(key: string, fetch: Fetch): Promise<{ credential: Credential; source: CacheSource }> {
    const entry = this.entries.get(key);
    const now = this.clock.now();
    if (entry && now < entry.usableUntil) {
      if (now >= entry.refreshFrom && !this.inflight.has(key)) {
        this.load(key, fetch).catch((error: unknown) => this.onBackgroundError(key, error));
      }
      return { credential: entry.credential, source: 'cache' };
    }
    if (entry) this.entries.delete(key);
    return { credential: await this.load(key, fetch), source: 'provider' };
  }

  /**
   * A new credential now (`kubecred refresh`), the cached ones kept until it comes: a renewal that
   * fails (the issuer down) leaves the profile served as before instead of locking it out, and
   * says why to its caller only. Once it comes, the profile's other credentials go with the old one.
   */
  async renew(key: string, fetch: Fetch): Promise<Credential> {
    const profile = profileOfCacheKey(key);
    const kept = [...this.entries].some(
      ([other, entry]) => profileOfCacheKey(other) === profile && this.clock.now() < entry.usableUntil,
    );
    const generation = this.generations.get(profile) ?? 0;
    const credential = await fetch().catch((error: unknown) => {
      if (!kept) this.failed(profile, generation, error);
      throw error;
    });
    if (this.current(profile, generation))
      for (const other of [...this.entries.keys()])
        if (profileOfCacheKey(other) === profile) this.entries.delete(other);
    this.fetched(key, generation, credential);
    return credential;
  }

  /**
   * Failures known from before this cache existed (the broker's last run), each shown until the
   * profile's next request succeeds or fails anew; a failure seen since is never replaced.
   */
  recallFailures(failures: ReadonlyMap<string, string>): void {
    const busy = new Set([...this.entries.keys(), ...this.inflight.keys()].map(profileOfCacheKey));
    for (const [profile, reason] of failures)
      if (!this.failures.has(profile) && !busy.has(profile))
        this.failures.set(profile, { reason, secretMissing: false });
    if (failures.size > 0) this.changes.notify();
  }

  /** Drops every credential of the profile, and any answer still on its way for it. */
  forget(profile: string): void {
    this.generations.set(profile, (this.generations.get(profile) ?? 0) + 1);
    this.failures.delete(profile);
    for (const key of [...this.entries.keys()]) {
      if (profileOfCacheKey(key) === profile) this.entries.delete(key);
    }
    for (const key of [...this.inflight.keys()]) {
      if (profileOfCacheKey(key) === profile) this.inflight.delete(key);
    }
    this.changes.notify();
  }

  forgetAll(): void {
    for (const profile of new Set([...this.entries.keys(), ...this.inflight.keys()].map(profileOfCacheKey)))
      this.forget(profile);
  }

  /** For status: the soonest expiry of the profile's usable credentials; null if cached without expiry. */
  describe(profile: string): {
    cached: boolean;
    expiresAt: number | null;
    lastError: string | null;
    /** The last failure was a secret missing from its store. */
    secretMissing: boolean;
    account: string | null;
  } {
    const now = this.clock.now();
    let cached = false;
    let expiresAt: number | null = null;
    let account: string | null = null;
    for (const [key, entry] of this.entries) {
      if (profileOfCacheKey(key) !== profile || now >= entry.usableUntil) continue;
      cached = true;
      account ??= entry.credential.account ?? null;
      const expiry = entry.credential.expiresAt?.getTime();
      if (expiry !== undefined && (expiresAt === null || expiry < expiresAt)) expiresAt = expiry;
    }
    const failure = this.failures.get(profile);
    return {
      cached,
      expiresAt,
      lastError: failure?.reason ?? null,
      secretMissing: failure?.secretMissing ?? false,
      account,
    };
  }

  private load(key: string, fetch: Fetch): Promise<Credential> {
    const running = this.inflight.get(key);
    if (running) return running;
    const profile = profileOfCacheKey(key);
    const generation = this.generations.get(profile) ?? 0;
    const promise = fetch().then(
      (credential) => (this.fetched(key, generation, credential), credential),
      (error: unknown) => {
        this.failed(profile, generation, error);
        throw error;
      },
    );
    const settled = promise.finally(() => {
      if (this.inflight.get(key) === settled) this.inflight.delete(key);
    });
    this.inflight.set(key, settled);
    return settled;
  }

  /** No forget() came since `generation` was read: an answer fetched then is still the profile's. */
  private current(profile: string, generation: number): boolean {
    return (this.generations.get(profile) ?? 0) === generation;
  }

  /** A fetch begun at `generation` brought a credential: cached, and the profile's failure gone. */
  private fetched(key: string, generation: number, credential: Credential): void {
    const profile = profileOfCacheKey(key);
    if (!this.current(profile, generation)) return;
    this.store(key, credential);
    this.failures.delete(profile);
    this.changes.notify();
  }

  /** A fetch begun at `generation` failed: the profile's failure, unless the person said no. */
  private failed(profile: string, generation: number, error: unknown): void {
    // A prompt or login the person cancelled is their no, not the profile failing: its state stays.
    if (!this.current(profile, generation) || error instanceof UserDeclined) return;
    this.failures.set(profile, {
      reason: (error as Error)?.message ?? String(error),
      secretMissing: error instanceof BrokerError && error.code === 'secret-missing',
    });
    this.changes.notify();
  }

  private store(key: string, credential: Credential): void {
    if (credential.identity !== undefined) this.dropOtherIdentities(key, credential.identity);
    const now = this.clock.now();
    const expiry = credential.expiresAt?.getTime();
    if (expiry === undefined) {
      this.put(key, { credential, usableUntil: Number.POSITIVE_INFINITY, refreshFrom: Number.POSITIVE_INFINITY });
      return;
    }
    const lifetime = Math.max(0, expiry - now);
    const usableUntil = expiry - Math.min(this.timing.expiryMarginMs, lifetime * 0.1);
    const refreshFrom = expiry - Math.min(this.timing.refreshAheadMs, lifetime * 0.25);
    if (usableUntil > now) this.put(key, { credential, usableUntil, refreshFrom });
  }

  /** A new identity for the profile (another user signed in): its other credentials are not theirs. */
  private dropOtherIdentities(key: string, identity: string): void {
    const profile = profileOfCacheKey(key);
    for (const [other, entry] of [...this.entries]) {
      if (other !== key && profileOfCacheKey(other) === profile && entry.credential.identity !== identity)
        this.entries.delete(other);
    }
  }

  private put(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    while (this.entries.size > this.timing.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }
}
