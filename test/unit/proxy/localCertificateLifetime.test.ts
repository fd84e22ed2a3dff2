import { describe, expect, it } from 'vitest';
import { localCertificateSeconds } from '../../../src/main/proxy/localCertificateLifetime.js';

describe('KUBECRED_PROXY_CERT_LIFETIME, the testing knob for the local certificates', () => {
  it('is ten minutes unset, and shortens them when set', () => {
    expect(localCertificateSeconds({})).toBe(600);
    expect(localCertificateSeconds({ KUBECRED_PROXY_CERT_LIFETIME: '' })).toBe(600);
    expect(localCertificateSeconds({ KUBECRED_PROXY_CERT_LIFETIME: '8s' })).toBe(8);
    expect(localCertificateSeconds({ KUBECRED_PROXY_CERT_LIFETIME: '2m' })).toBe(120);
    expect(localCertificateSeconds({ KUBECRED_PROXY_CERT_LIFETIME: '10m' })).toBe(600);
  });

  it.each(['8', 'abc', '0s', '1500ms', '10m1s', '2h', '-5s'])(
    'refuses %j, naming the variable and what it takes',
    (value) => {
      expect(() => localCertificateSeconds({ KUBECRED_PROXY_CERT_LIFETIME: value })).toThrow(
        expect.objectContaining({
          code: 'config-invalid',
          message: `KUBECRED_PROXY_CERT_LIFETIME=${JSON.stringify(value)} is not a whole number of seconds from 1s to 10m`,
          hint: expect.stringContaining('set it like 30s or 2m, or unset it'),
        }),
      );
    },
  );
});
