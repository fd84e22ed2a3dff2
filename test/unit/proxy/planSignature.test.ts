import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { planSignature } from '../../../src/main/proxy/planSignature.js';

const clientVerify = (transcriptBytes = 32, context = 'TLS 1.3, client CertificateVerify') =>
  Buffer.concat([Buffer.alloc(64, 0x20), Buffer.from(`${context}\0`, 'latin1'), Buffer.alloc(transcriptBytes, 7)]);

/** A TLS 1.2 transcript's shape: handshake messages (type, 24-bit length, body) from ClientHello to ClientKeyExchange. */
const handshake = (type: number, body: Buffer) =>
  Buffer.concat([Buffer.from([type, body.length >> 16, (body.length >> 8) & 0xff, body.length & 0xff]), body]);
const tls12Transcript = (types = [1, 2, 11, 12, 13, 14, 11, 16], serverVersion = 0x0303) =>
  Buffer.concat(
    types.map((type) =>
      handshake(
        type,
        type === 2
          ? Buffer.concat([Buffer.from([serverVersion >> 8, serverVersion & 0xff]), Buffer.alloc(38, 1)])
          : Buffer.alloc(40 + type, type),
      ),
    ),
  );

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
    expect(planSignature('ecdsa_sha384', message, 'ec')).toEqual({
      mechanism: 'ecdsa',
      hash: 'sha384',
      data: createHash('sha384').update(message).digest(),
    });
  });

  it('a TLS 1.2 profile: RSA PKCS#1 v1.5 over the handshake transcript, its digest inside a DigestInfo', () => {
    const message = tls12Transcript();
    const digest = createHash('sha256').update(message).digest();
    expect(planSignature('rsa_pkcs1_sha256', message, 'rsa', '1.2')).toEqual({
      mechanism: 'rsa-pkcs1',
      hash: 'sha256',
      data: Buffer.concat([Buffer.from('3031300d060960864801650304020105000420', 'hex'), digest]),
    });
    // With an RSA key exchange there is no ServerKeyExchange.
    expect(planSignature('ecdsa_sha384', tls12Transcript([1, 2, 11, 13, 14, 11, 16]), 'ec', '1.2').mechanism).toBe(
      'ecdsa',
    );
  });

  it.each([
    ['a TLS 1.3 CertificateVerify', clientVerify()],
    [
      'arbitrary bytes that start like a ClientHello',
      Buffer.concat([Buffer.from([1, 0, 0, 3]), Buffer.from('abcsign this too')]),
    ],
    ['a transcript cut short', tls12Transcript().subarray(0, 200)],
    ["a transcript without the server's certificate request", tls12Transcript([1, 2, 11, 12, 14, 11, 16])],
    ['a transcript where the server chose another version', tls12Transcript(undefined, 0x0302)],
  ])('a TLS 1.2 profile refuses %s', (_what, message) => {
    expect(() => planSignature('rsa_pkcs1_sha256', message, 'rsa', '1.2')).toThrow(/kubecred-proxy: /);
  });

  it('a TLS 1.3 profile refuses a TLS 1.2 transcript', () => {
    expect(() => planSignature('rsa_pss_sha256', tls12Transcript(), 'rsa')).toThrow(
      /not a TLS 1.3 client CertificateVerify/,
    );
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
