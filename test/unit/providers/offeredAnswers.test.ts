import { describe, expect, it } from 'vitest';
import { OfferedAnswers } from '../../../src/main/providers/offeredAnswers.js';

// I9: whatever is posted, the answers held stay bounded; the newest are the ones kept.
describe('OfferedAnswers', () => {
  it('keeps at most 64 answers: the oldest goes first, a profile offered again counts as new', () => {
    const answers = new OfferedAnswers(() => 0);
    answers.offer('p0', 'first');
    for (let i = 1; i < 64; i++) answers.offer(`p${i}`, String(i));
    answers.offer('p0', 'again');
    answers.offer('p64', '64');
    expect(answers.take('p1')).toBeUndefined();
    expect(answers.take('p0')).toBe('again');
    expect(answers.take('p2')).toBe('2');
    expect(answers.take('p64')).toBe('64');
  });

  it('drops expired answers first, so a fresh one never pushes out another fresh one', () => {
    let now = 0;
    const answers = new OfferedAnswers(() => now);
    for (let i = 0; i < 63; i++) answers.offer(`old${i}`, 'x');
    answers.offer('fresh', 'kept');
    now = 60_001;
    for (let i = 0; i < 63; i++) answers.offer(`new${i}`, 'y');
    expect(answers.take('new0')).toBe('y');
    expect(answers.take('old0')).toBeUndefined();
  });

  it('gives an answer once, within a minute', () => {
    let now = 0;
    const answers = new OfferedAnswers(() => now);
    answers.offer('p', '123456');
    expect(answers.take('p')).toBe('123456');
    expect(answers.take('p')).toBeUndefined();
    answers.offer('p', '123456');
    now = 60_000;
    expect(answers.take('p')).toBeUndefined();
  });
});
