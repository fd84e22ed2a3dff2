import { describe, expect, it } from 'vitest';
import { EnrolledCertificates } from '../../../src/main/enroll/enrolledCertificates.js';
import { configSchema } from '../../../src/shared/config/schema.js';
import { silentLogger } from '../../../src/main/core/logger.js';

// Issue 41: after a restart, status knows when an enrolled certificate ends before any kubectl
// has used the profile; the certificate is read from the token at start, with no PIN.

const { profiles } = configSchema.parse({
  tokens: [
    { name: 'hsm', module: '/x.so', label: 'card' },
    { name: 'away', module: '/y.so', label: 'pulled' },
  ],
  profiles: [
    { name: 'prod', provider: 'static', tokenCertificate: { token: 'hsm', label: 'kubecred-prod' } },
    { name: 'gone', provider: 'static', tokenCertificate: { token: 'away', label: 'kubecred-gone' } },
    { name: 'plain', provider: 'static' },
  ],
});

describe('the enrolled certificates read at start', () => {
  it('reads each enrolled profile’s certificate from its token; a token not there is skipped', async () => {
    const read: string[] = [];
    const certificates = new EnrolledCertificates({
      profiles: async () => profiles,
      readCertificate: async (token, label) => {
        read.push(`${token}/${label}`);
        if (token === 'away') throw new Error('token "away" is not inserted');
        return 'PEM of kubecred-prod';
      },
      logger: silentLogger,
    });
    expect(certificates.certificateOf('prod')).toBeUndefined();
    await certificates.load();
    expect(read).toEqual(['hsm/kubecred-prod', 'away/kubecred-gone']);
    expect(certificates.certificateOf('prod')).toBe('PEM of kubecred-prod');
    expect(certificates.certificateOf('gone')).toBeUndefined();
    expect(certificates.certificateOf('plain')).toBeUndefined();
  });
});
