import { describe, expect, it } from 'vitest';
import { tokenSchema } from '../../../src/shared/config/schema.js';

// I6 of the security review: pinGrace had no upper bound.
describe("a token's PIN grace", () => {
  const token = (pinGrace: string) =>
    tokenSchema.safeParse({ name: 'yk', module: '/usr/lib/opensc-pkcs11.so', label: 'PIV', pinGrace });

  it('is at most an hour', () => {
    for (const ok of ['30s', '15m', '1h']) expect(token(ok).success, ok).toBe(true);
    for (const tooLong of ['61m', '1h1s', '24h']) {
      const parsed = token(tooLong);
      expect(parsed.success, tooLong).toBe(false);
      expect(JSON.stringify(parsed.error?.issues)).toContain('keep a PIN for at most 1h');
    }
  });
});
