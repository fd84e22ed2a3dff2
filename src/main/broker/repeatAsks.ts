import type { Clock } from '../core/clock.js';

/** A repeat ask within this window is what client-go does after a 401 (and kubectl 1.33 on every command). */
const REPEAT_WINDOW_MS = 10_000;
/** However often it is asked, a profile's credential is checked at most this often. */
const CHECK_INTERVAL_MS = 5_000;

export interface ServedAnswer {
  readonly profile: string;
  readonly callerPid: number;
  readonly fromCache: boolean;
}

/**
 * client-go tells a plugin nothing about a 401; it only runs it again. So the sign that a
 * cached credential may have been revoked is the same process asking again, shortly after it
 * was served from the cache. This remembers the answers and says when one is such a repeat and
 * a check of its profile is due (at most every few seconds per profile). The cluster probe and
 * the issuer's own check both act on it.
 */
export class RepeatAsks {
  private readonly served = new Map<string, number>();
  private readonly checked = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  /** Records the answer; true when a check is due now (and counts it as made). `busy`: one runs already. */
  due(answer: ServedAnswer, busy = false): boolean {
    const now = this.clock.now();
    for (const [key, at] of this.served) if (now - at > REPEAT_WINDOW_MS) this.served.delete(key);
    const key = `${answer.profile}\u0000${answer.callerPid}`;
    const repeat = this.served.has(key);
    this.served.set(key, now);
    if (
      !answer.fromCache ||
      !repeat ||
      busy ||
      now - (this.checked.get(answer.profile) ?? -Infinity) < CHECK_INTERVAL_MS
    )
      return false;
    this.checked.set(answer.profile, now);
    return true;
  }
}
