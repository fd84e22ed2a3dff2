import { describe, expect, it } from 'vitest';
import { signerCapWords } from '../../../src/shared/certificateLife.js';

const DAY = 86_400_000;

describe('signerCapWords', () => {
  const issued = new Date('2026-12-02T02:08:38Z');

  it('says how much was asked and how much the signer gave when it capped the life', () => {
    expect(signerCapWords(30 * DAY, issued, new Date(issued.getTime() + 7 * DAY))).toBe(
      '30 days asked, the signer gave 7 days',
    );
  });

  it('says nothing when the signer gave what was asked, backdated start and all', () => {
    const backdated = new Date(issued.getTime() - 5 * 60_000);
    expect(signerCapWords(30 * DAY, backdated, new Date(issued.getTime() + 30 * DAY))).toBeNull();
  });
});
