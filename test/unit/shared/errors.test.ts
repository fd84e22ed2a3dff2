import { describe, expect, it } from 'vitest';
import { renderErrorLine } from '../../../src/shared/api/errors.js';

describe('renderErrorLine', () => {
  it('puts message and fix on one line', () => {
    expect(renderErrorLine({ message: 'no profile "x"', hint: 'add it to config.yaml' })).toBe(
      'kubecred: no profile "x". Add it to config.yaml\n',
    );
    expect(renderErrorLine({ message: 'broken' })).toBe('kubecred: broken\n');
  });
});
