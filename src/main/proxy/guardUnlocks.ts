import { BrokerError } from '../core/brokerError.js';
import type { Clock } from '../core/clock.js';

/** The longest a guard may be lifted for: a working day. Longer is a change to config.yaml. */
export const MAX_GUARD_OFF_MS = 12 * 60 * 60_000;

/**
 * Time-boxed unlocks of profiles' guards (`kubecred guard prod off --for 15m`). Kept in broker
 * memory only: a restart puts every guard back, which is the safe way to forget. An unlock
 * ends by itself; `onChange` hears of it then, so the proxy and every UI show the guard back.
 */
export class GuardUnlocks {
  private readonly until = new Map<string, { at: number; timer: ReturnType<typeof setTimeout> }>();
  private readonly listeners = new Set<(profile: string) => void>();

  constructor(private readonly clock: Clock) {}

  /** Lifts the profile's guard for `ms`; returns when it comes back. */
  off(profile: string, ms: number): Date {
    if (!Number.isFinite(ms) || ms <= 0 || ms > MAX_GUARD_OFF_MS)
      throw new BrokerError(
        'bad-request',
        `a guard can be lifted for 1 second up to ${MAX_GUARD_OFF_MS / 3_600_000} hours`,
        'give --for a duration like 15m or 1h; to drop a guard for good, edit the profile in config.yaml',
      );
    this.clear(profile);
    const at = this.clock.now() + ms;
    const timer = setTimeout(() => this.on(profile), ms);
    timer.unref();
    this.until.set(profile, { at, timer });
    this.notify(profile);
    return new Date(at);
  }

  /** Puts the profile's guard back now; false when it was not lifted. */
  on(profile: string): boolean {
    const lifted = this.clear(profile);
    if (lifted) this.notify(profile);
    return lifted;
  }

  /** Until when the profile's guard is lifted, or undefined when it holds. */
  offUntil(profile: string): Date | undefined {
    const entry = this.until.get(profile);
    if (!entry) return undefined;
    // The clock decides, not the timer: a timer can fire late, an unlock must not last longer.
    if (entry.at <= this.clock.now()) {
      this.on(profile);
      return undefined;
    }
    return new Date(entry.at);
  }

  onChange(listener: (profile: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Lock all: every unlock ends. */
  forgetAll(): void {
    for (const profile of [...this.until.keys()]) this.on(profile);
  }

  close(): void {
    for (const { timer } of this.until.values()) clearTimeout(timer);
    this.until.clear();
  }

  private clear(profile: string): boolean {
    const entry = this.until.get(profile);
    if (!entry) return false;
    clearTimeout(entry.timer);
    this.until.delete(profile);
    return true;
  }

  private notify(profile: string): void {
    for (const listener of this.listeners) listener(profile);
  }
}
