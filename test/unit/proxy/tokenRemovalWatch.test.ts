import { describe, expect, it } from 'vitest';
import type { Logger } from '../../../src/main/core/logger.js';
import { TokenRemovalWatch, type TokenPresence } from '../../../src/main/proxy/tokenRemovalWatch.js';

const silent: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
} as unknown as Logger;

function watchWith(presence: Record<string, TokenPresence | Error>) {
  const revoked: string[] = [];
  const warnings: unknown[] = [];
  const watch = new TokenRemovalWatch({
    tokensInUse: () => Object.keys(presence),
    presence: async (token) => {
      const answer = presence[token]!;
      if (answer instanceof Error) throw answer;
      return answer;
    },
    revokeToken: async (token) => void revoked.push(token),
    logger: { ...silent, warn: (...args: unknown[]) => void warnings.push(args) } as Logger,
  });
  return { watch, revoked, warnings };
}

// Issue 15: a pulled token ends the streams that were signed with it.
describe('the token removal watch', () => {
  it('ends the connections of a token that is gone, and only of that one', async () => {
    const { watch, revoked, warnings } = watchWith({ card: 'gone', hsm: 'present', spare: 'idle' });
    await watch.check();
    expect(revoked).toEqual(['card']);
    expect(warnings).toHaveLength(1);
  });

  it('an error asking the token is not a removal', async () => {
    const { watch, revoked } = watchWith({ card: new Error('CKR_FUNCTION_FAILED') });
    await watch.check();
    expect(revoked).toEqual([]);
  });

  it('rounds do not overlap: a second check while one runs shares it', async () => {
    let calls = 0;
    let release!: () => void;
    const watch = new TokenRemovalWatch({
      tokensInUse: () => ['card'],
      presence: () => ((calls += 1), new Promise<TokenPresence>((resolve) => (release = () => resolve('present')))),
      revokeToken: async () => undefined,
      logger: silent,
    });
    const first = watch.check();
    const second = watch.check();
    await Promise.resolve();
    await Promise.resolve();
    release();
    await Promise.all([first, second]);
    expect(calls).toBe(1);
  });
});
