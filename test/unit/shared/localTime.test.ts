import { describe, expect, it } from 'vitest';
import { formatLocalTime } from '../../../src/shared/localTime.js';

describe('formatLocalTime', () => {
  const at = new Date(2026, 11, 2, 3, 6, 31).getTime();

  it('says only the time on the same day', () => {
    expect(formatLocalTime(at, new Date(2026, 11, 2, 18, 0).getTime())).toBe('03:06');
  });

  it('adds the day on another day of the year, and the year before that', () => {
    expect(formatLocalTime(at, new Date(2026, 11, 9).getTime())).toBe('Dec 2, 03:06');
    expect(formatLocalTime(at, new Date(2027, 0, 5).getTime())).toBe('Dec 2 2026, 03:06');
  });
});
