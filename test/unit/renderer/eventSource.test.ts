import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GONE_AFTER_TRIES, followEvents } from '../../../src/renderer/api/eventSource.js';
import { ApiError } from '../../../src/renderer/api/transport.js';

describe('followEvents after its broker went away (N10: a dead tab misleads)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('says the broker is gone once nobody answered a few tries in a row, and keeps trying for one that was asleep', async () => {
    const errors: Error[] = [];
    let prechecks = 0;
    const stop = followEvents(
      async () => {
        throw new TypeError('fetch failed');
      },
      { onState: () => {}, onError: (error) => errors.push(error) },
      {
        challenge: () => 'c',
        verify: async () => true,
        precheck: async () => (prechecks++, 'unreachable'),
      },
    );
    const gone = () => errors.filter((e) => e instanceof ApiError && e.code === 'broker-gone');
    await vi.advanceTimersByTimeAsync(2_000 * (GONE_AFTER_TRIES - 1));
    expect(gone()).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(2_000 * 3);
    expect(gone()).toHaveLength(1);
    expect(gone()[0]!.message).toMatch(/^Kubecred stopped or was started again/);
    expect((gone()[0] as ApiError).hint).toContain('kubecred ui');
    const triesWhenTold = prechecks;
    await vi.advanceTimersByTimeAsync(2_000 * 5);
    expect(prechecks).toBeGreaterThan(triesWhenTold);
    expect(gone()).toHaveLength(1);
    stop();
  });
});
