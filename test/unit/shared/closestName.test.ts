import { describe, expect, it } from 'vitest';
import { closestName } from '../../../src/shared/closestName.js';

describe('closestName', () => {
  it.each([
    ['dmeo', ['demo', 'sso'], 'demo'],
    ['deom', ['demo', 'sso'], 'demo'],
    ['dem', ['demo-eu', 'sso'], 'demo-eu'],
    ['Demo', ['demo'], 'demo'],
    ['prodd', ['prod', 'dev'], 'prod'],
  ])('%s among %j means %s', (typed, known, meant) => {
    expect(closestName(typed, known)).toBe(meant);
  });

  it.each([
    ['kubernetes', ['demo', 'sso']],
    ['dev3', ['dev1', 'dev2']],
    ['x', []],
  ])('%s among %j means nothing it could name', (typed, known) => {
    expect(closestName(typed, known)).toBeUndefined();
  });
});
