import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/main/core/brokerError.js';
import { parsePluginOutput } from '../../../src/main/providers/exec/pluginOutput.js';
import { mutateText, seededRandom } from '../../support/fuzz.js';

const V1 = 'client.authentication.k8s.io/v1';
const PLANTED = 'planted-plugin-token-5d1f0c';
const VALID = JSON.stringify({
  apiVersion: V1,
  kind: 'ExecCredential',
  status: { token: PLANTED, expirationTimestamp: '2030-01-01T00:00:00Z' },
});
const context = { name: 'exec plugin "fuzz"', apiVersion: V1, now: Date.parse('2026-01-01T00:00:00Z'), ttlMs: 60_000 };

describe('a wrapped plugin printing junk', () => {
  it('gets a BrokerError or a credential for 3000 damaged outputs, and its stdout is never quoted', () => {
    const random = seededRandom();
    let rejected = 0;
    for (let i = 0; i < 3000; i++) {
      let output = VALID;
      for (let round = random.int(3) + 1; round > 0; round--) output = mutateText(random, output);
      try {
        const credential = parsePluginOutput(output, context);
        // Accepted: it must still be a usable credential, never a half one.
        expect(credential.token ?? credential.clientCertificateData, `seed ${random.seed} case ${i}`).toBeTruthy();
        expect(Number.isNaN(credential.expiresAt?.getTime() ?? 0), `seed ${random.seed} case ${i}: expiry`).toBe(false);
      } catch (error) {
        rejected++;
        expect(error, `seed ${random.seed} case ${i}`).toBeInstanceOf(BrokerError);
        const { message, hint } = error as BrokerError & { hint?: string };
        expect(message, `seed ${random.seed} case ${i}`).not.toContain(PLANTED.slice(0, 12));
        expect(message.length, `seed ${random.seed} case ${i}: one short line`).toBeLessThan(300);
        expect(message).not.toContain('\n');
        expect(hint ?? '').not.toContain(PLANTED.slice(0, 12));
      }
    }
    expect(rejected).toBeGreaterThan(1000);
  });
});
