import { describe, expect, it } from 'vitest';
import { formatRemaining, parseDuration } from '../../../src/shared/duration.js';

describe('durations', () => {
  it.each([
    ['30s', 30_000],
    ['15m', 900_000],
    ['1h30m', 5_400_000],
    ['250ms', 250],
    ['1.5h', 5_400_000],
  ])('parses %s', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });
  it.each(['', 'soon', '15', '5 m', '1h junk'])('rejects %j', (text) => expect(parseDuration(text)).toBeUndefined());
  it('formats time left the way the tray shows it', () => {
    expect(formatRemaining(42 * 60_000 + 5_000)).toBe('42 min');
    expect(formatRemaining(185 * 60_000)).toBe('3 h 5 min');
    expect(formatRemaining(40_000)).toBe('40 s');
    expect(formatRemaining(-1)).toBe('expired');
  });

  // New-user finding N27: "the certificate ends in 167 h 49 min" should read "7 days".
  it('says days from two days on, rounded to the nearest', () => {
    expect(formatRemaining((167 * 60 + 49) * 60_000)).toBe('7 days');
    expect(formatRemaining(48 * 3_600_000)).toBe('2 days');
    expect(formatRemaining(30 * 86_400_000)).toBe('30 days');
    expect(formatRemaining((47 * 60 + 59) * 60_000)).toBe('47 h 59 min');
  });
});
