const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses "90s", "15m", "1h30m", "250ms" into milliseconds; undefined when malformed. */
export function parseDuration(text: string): number | undefined {
  const parts = text.trim().match(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g);
  if (!parts || parts.join('') !== text.trim()) return undefined;
  return parts.reduce((total, part) => {
    const [, amount, unit] = part.match(/^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/) ?? [];
    return total + Number(amount) * (UNIT_MS[unit ?? ''] ?? Number.NaN);
  }, 0);
}

/** From two days on, hours and minutes are noise: "7 days", not "167 h 49 min". */
const DAYS_FROM_HOURS = 48;

/**
 * "42 min", "3 h 5 min", "40 s", "7 days": a length of time as every view says it (time left
 * in the tray and `kubecred status`, a certificate's life, a guard's lift). Days are rounded to
 * the nearest, so a certificate of 7 days read a minute after issue is still "7 days". Minutes
 * round down by default, so a credential never lasts less than it says; up for a wait, which
 * never ends sooner.
 */
export function formatRemaining(ms: number, rounding: 'down' | 'up' = 'down'): string {
  if (ms <= 0) return 'expired';
  const minutes = rounding === 'up' && ms > 60_000 ? Math.ceil(ms / 60_000) : Math.floor(ms / 60_000);
  if (minutes < 1) return `${Math.ceil(ms / 1000)} s`;
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours >= DAYS_FROM_HOURS) return `${Math.round(ms / 86_400_000)} days`;
  const rest = minutes % 60;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}
