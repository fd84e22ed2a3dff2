import { describe, expect, it } from 'vitest';
import { formatRemaining, parseDuration } from '../../../src/shared/duration.js';
import { renderErrorLine } from '../../../src/shared/api/errors.js';
import { parseOutputFlag } from '../../../src/main/cli/outputFlag.js';

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
});

describe('renderErrorLine', () => {
  it('puts message and fix on one line', () => {
    expect(renderErrorLine({ message: 'no profile "x"', hint: 'add it to config.yaml' })).toBe(
      'kubecred: no profile "x". Add it to config.yaml\n',
    );
    expect(renderErrorLine({ message: 'broken' })).toBe('kubecred: broken\n');
  });
});

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
