import { useEffect, useState } from 'react';
import type { ProfileSummary } from '../shared/api/status.js';
import { tickMs } from './profileBadge.js';

/**
 * The time left on screen moves on its own; the broker only says when things change. Now,
 * moved on as often as the nearest expiry among `profiles` needs (every second only in its
 * last minutes).
 */
export function useNow(profiles: readonly ProfileSummary[] | undefined): number {
  const [tick, setTick] = useState(15_000);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), tick);
    return () => clearInterval(timer);
  }, [tick]);
  useEffect(() => {
    if (profiles) setTick(tickMs(profiles, Date.now()));
  }, [profiles, now]);
  return now;
}
