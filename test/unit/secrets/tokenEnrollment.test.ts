// The pure parts of making a key on a token for kubecred enroll: which tokens can (from the
// mechanisms they list), the ECDSA signature form, and the certificate fields PKCS#11 keeps.
// The token itself is in test/integration/tokenKeyGeneration.test.ts.
import { execFile } from 'node:child_process';
import { X509Certificate, generateKeyPairSync, sign, verify } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/main/core/brokerError.js';
import { tokenSchema } from '../../../src/shared/config/schema.js';
import * as K from '../../../src/main/secrets/pkcs11/constants.js';
import {
  algorithmShortfall,
  requireAlgorithm,
  type MechanismTable,
  type OfferedMechanism,
} from '../../../src/main/secrets/pkcs11/keyAlgorithms.js';
import { ecdsaDer } from '../../../src/main/secrets/pkcs11/tokenDigestSigner.js';
import { certificateFields } from '../../../src/main/secrets/pkcs11/x509Fields.js';
import { onPath } from '../../support/onPath.js';

const exec = promisify(execFile);
const TOKEN = tokenSchema.parse({ name: 'card', module: '/fake/libcard.so', label: 'My Card' });

const generate = (min: number, max: number): OfferedMechanism => ({
  minKeySize: min,
  maxKeySize: max,
  flags: K.CKF_GENERATE_KEY_PAIR,
});
const signs = (min: number, max: number): OfferedMechanism => ({ minKeySize: min, maxKeySize: max, flags: K.CKF_SIGN });

/** SoftHSM 2.6's answers for the four mechanisms. */
const SOFTHSM: MechanismTable = new Map([
  [K.CKM_EC_KEY_PAIR_GEN, generate(112, 521)],
  [K.CKM_ECDSA, signs(112, 521)],
  [K.CKM_RSA_PKCS_KEY_PAIR_GEN, generate(512, 16384)],
  [K.CKM_RSA_PKCS, signs(512, 16384)],
]);

function without(table: MechanismTable, mechanism: number, replacement?: OfferedMechanism): MechanismTable {
  const copy = new Map(table);
  if (replacement) copy.set(mechanism, replacement);
  else copy.delete(mechanism);
  return copy;
}

function refusal(table: MechanismTable, algorithm: 'ec-p256' | 'ec-p384' | 'rsa-2048'): BrokerError {
  try {
    requireAlgorithm(TOKEN, algorithm, table);
  } catch (error) {
    expect(error).toBeInstanceOf(BrokerError);
    return error as BrokerError;
  }
  throw new Error(`${algorithm} was not refused`);
}

describe('which key types a token can make', () => {
  it('takes a token that lists the mechanisms with the right flags and sizes', () => {
    for (const algorithm of ['ec-p256', 'ec-p384', 'rsa-2048'] as const) {
      expect(algorithmShortfall(algorithm, SOFTHSM)).toBeUndefined();
      expect(() => requireAlgorithm(TOKEN, algorithm, SOFTHSM)).not.toThrow();
    }
    // A module that gives no size range (0, 0) is not held to one; one that counts EC sizes in bytes is understood.
    const vague = new Map([
      [K.CKM_EC_KEY_PAIR_GEN, generate(0, 0)],
      [K.CKM_ECDSA, signs(32, 48)],
    ]);
    expect(algorithmShortfall('ec-p384', vague)).toBeUndefined();
  });

  it('refuses a token without CKM_EC_KEY_PAIR_GEN, naming the token, the mechanism and what to do', () => {
    const error = refusal(without(SOFTHSM, K.CKM_EC_KEY_PAIR_GEN), 'ec-p256');
    expect(error.code).toBe('bad-request');
    expect(error.message).toBe(
      'token "card" (label "My Card") cannot make ec-p256 keys: it offers no CKM_EC_KEY_PAIR_GEN',
    );
    expect(error.hint).toContain('--key-type');
    expect(error.hint).toContain('this token can make rsa-2048');
    expect(error.hint).toContain('another token');
  });

  it('refuses a mechanism without the flag it is needed for, or the key size', () => {
    expect(refusal(without(SOFTHSM, K.CKM_ECDSA, generate(112, 521)), 'ec-p256').message).toContain(
      'its CKM_ECDSA cannot be used to sign',
    );
    expect(refusal(without(SOFTHSM, K.CKM_RSA_PKCS_KEY_PAIR_GEN, signs(512, 4096)), 'rsa-2048').message).toContain(
      'its CKM_RSA_PKCS_KEY_PAIR_GEN cannot be used to generate key pairs',
    );
    const p256Only = without(without(SOFTHSM, K.CKM_EC_KEY_PAIR_GEN, generate(256, 256)), K.CKM_ECDSA, signs(256, 256));
    expect(refusal(p256Only, 'ec-p384').message).toContain('takes curves of 256 to 256 bits, not 384');
    expect(refusal(without(SOFTHSM, K.CKM_RSA_PKCS), 'rsa-2048').hint).toContain('ec-p256, ec-p384');
  });

  it('says to use another token when it can make none of them', () => {
    const error = refusal(new Map(), 'ec-p256');
    expect(error.hint).toMatch(/^use another token/);
  });
});

describe('ECDSA signatures as X.509 carries them', () => {
  for (const namedCurve of ['P-256', 'P-384', 'P-521']) {
    it(`turns the token's r || s into DER that verifies (${namedCurve})`, () => {
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve });
      // Many signatures, so that r or s with a high bit or a leading zero byte come up.
      for (let i = 0; i < 40; i++) {
        const message = Buffer.from(`message ${i}`);
        const raw = sign('sha256', message, { key: privateKey, dsaEncoding: 'ieee-p1363' });
        const der = ecdsaDer(raw);
        expect(verify('sha256', message, publicKey, der)).toBe(true);
        expect(der[0]).toBe(0x30);
      }
    });
  }
});

describe.runIf(onPath('openssl'))('the certificate fields PKCS#11 keeps beside a certificate', () => {
  it('reads the DER subject, issuer and serial number openssl wrote', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kc-x509-'));
    try {
      const run = (args: string[]) => exec('openssl', args, { cwd: dir, timeout: 30_000 });
      await run(
        ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'].concat([
          '-keyout',
          'ca.key',
          '-out',
          'ca.crt',
          '-subj',
          '/CN=kc test CA',
          '-days',
          '2',
        ]),
      );
      await run(
        ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'].concat([
          '-keyout',
          'leaf.key',
          '-out',
          'leaf.csr',
          '-subj',
          '/O=system:masters/CN=alice',
        ]),
      );
      await run(
        ['x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-set_serial', '0x00c0ffee01'].concat([
          '-days',
          '2',
          '-outform',
          'DER',
          '-out',
          'leaf.der',
        ]),
      );
      const der = await readFile(join(dir, 'leaf.der'));
      const fields = certificateFields(der);
      const certificate = new X509Certificate(der);
      expect(fields.serialNumber.toString('hex')).toBe('020500c0ffee01');
      expect(certificate.serialNumber.toLowerCase()).toBe('c0ffee01');
      const name = async (which: 'subject' | 'issuer') =>
        (await run(['x509', '-inform', 'DER', '-in', 'leaf.der', '-noout', `-${which}`, '-nameopt', 'RFC2253'])).stdout;
      expect(await name('subject')).toContain('CN=alice,O=system:masters');
      // The names' DER as they sit in the certificate: found verbatim in it, and each a SEQUENCE.
      for (const field of [fields.subject, fields.issuer]) {
        expect(field[0]).toBe(0x30);
        expect(der.includes(field)).toBe(true);
      }
      expect(fields.subject.includes(Buffer.from('alice'))).toBe(true);
      expect(fields.issuer.includes(Buffer.from('kc test CA'))).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses what is not a certificate', () => {
    expect(() => certificateFields(Buffer.from('30030201', 'hex'))).toThrow(/DER/);
    expect(() => certificateFields(Buffer.from('not der'))).toThrow();
  });
});
