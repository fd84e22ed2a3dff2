import { describe, expect, it } from 'vitest';
import { LineBudget } from '../../../src/main/core/lineBudget.js';

describe('LineBudget', () => {
  it('lets one line per key a minute through, and says how many were dropped on the next one', () => {
    let now = 0;
    const budget = new LineBudget(() => now);
    expect(budget.admit('wrong Host header')).toBe(0);
    for (let i = 0; i < 500; i++) expect(budget.admit('wrong Host header')).toBeUndefined();
    // Another reason has its own budget.
    expect(budget.admit('foreign Origin')).toBe(0);
    now = 59_999;
    expect(budget.admit('wrong Host header')).toBeUndefined();
    now = 60_000;
    expect(budget.admit('wrong Host header')).toBe(501);
    now = 200_000;
    expect(budget.admit('wrong Host header')).toBe(0);
  });

  it('allows a larger budget a window', () => {
    const budget = new LineBudget(() => 0, 3);
    expect([1, 2, 3, 4].map(() => budget.admit('stderr'))).toEqual([0, 0, 0, undefined]);
  });
});
