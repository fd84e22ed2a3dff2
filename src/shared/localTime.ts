const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * An instant as a person reads it, in this machine's time zone: "14:06" today, "Dec 2, 14:06"
 * another day this year, "Dec 2 2025, 14:06" before. Raw ISO (2026-12-02T02:06:31.965Z) is for
 * logs and JSON, not for sentences.
 */
export function formatLocalTime(instant: number, now: number): string {
  const at = new Date(instant);
  const today = new Date(now);
  const clock = `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
  if (at.toDateString() === today.toDateString()) return clock;
  const day = `${MONTHS[at.getMonth()]} ${at.getDate()}`;
  return at.getFullYear() === today.getFullYear() ? `${day}, ${clock}` : `${day} ${at.getFullYear()}, ${clock}`;
}
