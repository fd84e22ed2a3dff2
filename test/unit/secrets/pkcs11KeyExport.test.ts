import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ckrOf, describeFailure, isTokenGone } from '../../../src/main/secrets/pkcs11/ckr.js';
import { UnsupportedKeyError, ecPrivateKeyPem, rsaPrivateKeyPem } from '../../../src/main/secrets/pkcs11/keyExport.js';
import { describePinTries, pinFlagsOf } from '../../../src/main/secrets/pkcs11/pinFlags.js';
import { slotIdText, unpad } from '../../../src/main/secrets/pkcs11/binding.js';

const spki = (key: KeyObject) => createPublicKey(key).export({ type: 'spki', format: 'der' });
const b = (text: string | undefined) => Buffer.from(text ?? '', 'base64url');

describe('PKCS#11 key export', () => {
  for (const [curve, oid] of [
    ['P-256', '06082a8648ce3d030107'],
    ['P-384', '06052b81040022'],
    ['P-521', '06052b81040023'],
  ] as const) {
    it(`turns CKA_EC_PARAMS + CKA_VALUE (${curve}) into the same key as PKCS#8 PEM`, () => {
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: curve });
      const pem = ecPrivateKeyPem(Buffer.from(oid, 'hex'), b(privateKey.export({ format: 'jwk' }).d));
      expect(pem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
      expect(spki(createPrivateKey(pem)).equals(spki(privateKey))).toBe(true);
    });
  }

  it('pads a scalar the token stored without its leading zero bytes', () => {
    for (;;) {
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const d = b(privateKey.export({ format: 'jwk' }).d);
      if (d[0] !== 0) continue;
      const pem = ecPrivateKeyPem(Buffer.from('06082a8648ce3d030107', 'hex'), d.subarray(1));
      expect(spki(createPrivateKey(pem)).equals(spki(privateKey))).toBe(true);
      return;
    }
  });

  it('refuses curves it cannot name', () => {
    expect(() => ecPrivateKeyPem(Buffer.from('06032b6570', 'hex'), Buffer.alloc(32, 1))).toThrow(UnsupportedKeyError);
  });

  it('turns RSA CRT attributes into the same key as PKCS#8 PEM, leading zeros or not', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const jwk = privateKey.export({ format: 'jwk' });
    const padded = (text: string | undefined) => Buffer.concat([Buffer.alloc(1), b(text)]);
    const pem = rsaPrivateKeyPem({
      modulus: padded(jwk.n),
      publicExponent: b(jwk.e),
      privateExponent: b(jwk.d),
      prime1: b(jwk.p),
      prime2: b(jwk.q),
      exponent1: b(jwk.dp),
      exponent2: b(jwk.dq),
      coefficient: b(jwk.qi),
    });
    expect(spki(createPrivateKey(pem)).equals(spki(privateKey))).toBe(true);
  });
});

describe('PKCS#11 return values and flags', () => {
  it('reads the CK_RV from both error shapes pkcs11js throws', () => {
    expect(ckrOf(Object.assign(new Error('CKR_PIN_INCORRECT'), { code: 0xa0 }))).toBe(0xa0);
    expect(ckrOf(new Error('CKR_ATTRIBUTE_READ_ONLY:16'))).toBe(16);
    expect(ckrOf(new Error('CKR_DEVICE_REMOVED'))).toBe(0x32);
    expect(ckrOf(new Error('something else'))).toBeUndefined();
    expect(describeFailure(new Error('CKR_ATTRIBUTE_READ_ONLY:16'))).toBe('CKR_ATTRIBUTE_READ_ONLY');
    expect(describeFailure(Object.assign(new Error('x'), { code: 0xe0 }))).toBe('CKR_TOKEN_NOT_PRESENT');
  });

  it('treats removal, slot and session loss (and SoftHSM general errors) as the token gone', () => {
    for (const code of [0xe0, 0x32, 0xb3, 0xb0, 0x3, 0xe1, 0x5]) expect(isTokenGone({ code })).toBe(true);
    for (const code of [0xa0, 0xa4, 0x101, 0x11]) expect(isTokenGone({ code })).toBe(false);
  });

  it('words the PIN counter flags as the token reports them', () => {
    expect(pinFlagsOf(0x10000 | 0x400)).toEqual({ countLow: true, finalTry: false, locked: false });
    expect(describePinTries(pinFlagsOf(0x10000))).toContain('tries are low');
    expect(describePinTries(pinFlagsOf(0x30000))).toContain('one try left');
    expect(describePinTries(pinFlagsOf(0x40000))).toContain('locked');
    expect(describePinTries(pinFlagsOf(0))).toContain('not report its tries as low');
    expect(describePinTries(undefined)).toContain('did not say');
  });

  it('shows slot ids and padded strings as users see them', () => {
    expect(slotIdText(Buffer.from([0x5f, 0x42, 0x7f, 0x25, 0, 0, 0, 0]))).toBe('629097055');
    expect(unpad('kc-test                         ')).toBe('kc-test');
    expect(unpad('serial\0\0')).toBe('serial');
  });
});
