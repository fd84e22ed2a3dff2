import { parseDuration } from '../../shared/duration.js';
import { MAX_GUARD_OFF_MS } from '../proxy/guardUnlocks.js';
import { UsageError } from './io.js';

const MAX_WORDS = `${MAX_GUARD_OFF_MS / 3_600_000}h`;

/**
 * How long `kubecred guard <profile> off --for <duration>` lifts the guard, in ms. A duration it
 * cannot take is refused with what is wrong with it: a bare number has no unit, a long one is
 * over the limit; anything else gets the form it takes.
 */
export function guardLiftMs(profile: string, rest: readonly string[]): number {
  const duration = rest[0] === '--for' ? rest[1] : rest[0]?.startsWith('--for=') ? rest[0].slice(6) : undefined;
  const used = rest[0] === '--for' ? 2 : 1;
  const ms = duration === undefined ? undefined : parseDuration(duration);
  if (duration !== undefined && rest.length === used) {
    if (/^\d+$/.test(duration) && Number(duration) > 0)
      throw new UsageError(
        `${duration}: give a unit, e.g. ${duration}m: kubecred guard ${profile} off --for ${duration}m`,
      );
    if (ms !== undefined && ms > MAX_GUARD_OFF_MS)
      throw new UsageError(
        `${duration} is more than the ${MAX_WORDS} a guard may be lifted for: kubecred guard ${profile} off --for ${MAX_WORDS} at most; it comes back by itself`,
      );
    if (ms !== undefined && ms > 0) return ms;
  }
  throw new UsageError(
    `a guard is lifted for a while only: kubecred guard <profile> off --for 15m (at most ${MAX_WORDS}); it comes back by itself`,
  );
}
