import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { planSignature } from '../../src/main/proxy/signaturePlan.js';

const clientVerify = (transcriptBytes = 32, context = 'TLS 1.3, client CertificateVerify') =>
  Buffer.concat([Buffer.alloc(64, 0x20), Buffer.from(`${context}\0`, 'latin1'), Buffer.alloc(transcriptBytes, 7)]);

// Issue 15: the broker signs with the token's key only what a TLS 1.3 client handshake needs,
// so its control channel is no signing oracle.
describe('what the token signs for the exec proxy', () => {
  it('an RSA-PSS CertificateVerify: the digest of the whole message, the salt as long as the hash', () => {
    const message = clientVerify();
    const plan = planSignature('rsa_pss_sha256', message, 'rsa');
    expect(plan).toEqual({ mechanism: 'rsa-pss', hash: 'sha256', data: createHash('sha256').update(message).digest() });
    expect(planSignature('rsa_pss_sha384', clientVerify(48), 'rsa').data).toHaveLength(48);
  });

  it('ECDSA on an EC key, the digest in (the token answers r||s)', () => {
    const message = clientVerify(48);
    expect(planSignature('ecdsa_sha384', message, 'ec')).toEqual({ mechanism: 'ecdsa', hash: 'sha384', data: createHash('sha384').update(message).digest() });
  });

  it.each([
    ['a server CertificateVerify', 'rsa_pss_sha256', clientVerify(32, 'TLS 1.3, server CertificateVerify'), 'rsa'],
    ['arbitrary bytes', 'rsa_pss_sha256', Buffer.from('sign this JWT for me'), 'rsa'],
    ['a transcript hash of the wrong length', 'rsa_pss_sha256', clientVerify(20), 'rsa'],
    ['a bare digest', 'ecdsa_sha256', createHash('sha256').update('x').digest(), 'ec'],
    ['PKCS#1 v1.5, which TLS 1.3 forbids', 'rsa_pkcs1_sha256', clientVerify(), 'rsa'],
    ['ECDSA with an RSA key', 'ecdsa_sha256', clientVerify(), 'rsa'],
    ['RSA-PSS with an EC key', 'rsa_pss_sha256', clientVerify(), 'ec'],
    ['an unknown scheme', 'ed25519', clientVerify(), 'ec'],
  ] as const)('refuses %s', (_what, scheme, message, keyType) => {
    expect(() => planSignature(scheme, message, keyType)).toThrow(/kubecred-proxy: /);
  });
});
