import { describe, expect, it } from 'vitest';
import { PROMPT_TIMEOUT_MS, promptTimeoutMs } from '../../../src/main/ui/promptTimeout.js';

describe('KUBECRED_PROMPT_TIMEOUT, the testing knob for how long a question waits', () => {
  it('is two minutes unset, and as set from 1s to 2m', () => {
    expect(promptTimeoutMs({})).toBe(PROMPT_TIMEOUT_MS);
    expect(promptTimeoutMs({ KUBECRED_PROMPT_TIMEOUT: '' })).toBe(120_000);
    expect(promptTimeoutMs({ KUBECRED_PROMPT_TIMEOUT: '3s' })).toBe(3_000);
    expect(promptTimeoutMs({ KUBECRED_PROMPT_TIMEOUT: '2m' })).toBe(120_000);
  });

  it('refuses anything else, naming the variable and what to set', () => {
    for (const value of ['500ms', '3m', 'soon'])
      expect(() => promptTimeoutMs({ KUBECRED_PROMPT_TIMEOUT: value })).toThrow(
        /KUBECRED_PROMPT_TIMEOUT=".*" is not a duration from 1s to 2m/,
      );
  });
});
