import { describe, expect, it } from 'vitest';
import { parseOutputFlag } from '../../../src/main/cli/outputFlag.js';

describe('parseOutputFlag', () => {
  it.each([
    [[], 'text'],
    [['-o', 'json'], 'json'],
    [['-ojson'], 'json'],
    [['--output=json'], 'json'],
  ])('reads %j', (args, expected) => {
    expect(parseOutputFlag(args as string[])).toBe(expected);
  });
  it('rejects unknown formats and stray arguments', () => {
    expect(() => parseOutputFlag(['-o', 'yaml'])).toThrow('unknown output format');
    expect(() => parseOutputFlag(['extra'])).toThrow('unexpected argument');
  });
});
