/**
 * Reads a timestamp a server or plugin wrote (ISO 8601 / RFC 3339) as an instant. One written
 * without an offset is UTC: Keystone writes `expires_at` that way for application credentials,
 * and Date.parse would read it as this machine's local time, hours off. Fractions of a second
 * past milliseconds are dropped. Undefined for anything that is not such a timestamp.
 */
export function parseServerTimestamp(text: string): number | undefined {
  const match = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}(?::\d{2})?)(?:\.(\d+))?([Zz]|[+-]\d{2}(?::?\d{2})?)?$/.exec(
    text.trim(),
  );
  if (!match) return undefined;
  const [, date, time, fraction, zone] = match;
  const millis = fraction ? `.${fraction.slice(0, 3).padEnd(3, '0')}` : '';
  const offset = !zone || zone.toUpperCase() === 'Z' ? 'Z' : normaliseOffset(zone);
  const instant = Date.parse(`${date}T${time}${millis}${offset}`);
  return Number.isNaN(instant) ? undefined : instant;
}

/** +05 and +0530 as Date.parse needs them: +05:00, +05:30. */
function normaliseOffset(zone: string): string {
  const digits = zone.slice(1).replace(':', '');
  return `${zone[0]}${digits.slice(0, 2)}:${digits.slice(2, 4) || '00'}`;
}
