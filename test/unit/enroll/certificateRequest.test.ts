// The PKCS#10 encoder with keys node:crypto holds (the token's half is in
// test/integration/tokenKeyGeneration.test.ts): openssl is the judge of the DER, the signature
// and the subject Kubernetes reads (CN the user, each O a group).
import { execFile } from 'node:child_process';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certificateRequest, type RequestHash } from '../../../src/main/enroll/certificateRequest.js';
import {
  bitString,
  integer,
  objectIdentifier,
  printableString,
  sequence,
  setOf,
  utf8String,
} from '../../../src/main/enroll/der.js';
import { brokerFailure } from '../../support/brokerFailure.js';
import { onPath } from '../../support/onPath.js';

const exec = promisify(execFile);

const KEYS = {
  'ec-p256': () => generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  'ec-p384': () => generateKeyPairSync('ec', { namedCurve: 'P-384' }),
  'rsa-2048': () => generateKeyPairSync('rsa', { modulusLength: 2048 }),
};

function requestFor(
  keys: { publicKey: KeyObject; privateKey: KeyObject },
  hash: RequestHash,
  subject: { commonName: string; organizations: string[] },
) {
  const keyType = keys.publicKey.asymmetricKeyType === 'rsa' ? 'rsa' : 'ec';
  return certificateRequest({
    spki: keys.publicKey.export({ type: 'spki', format: 'der' }),
    ...subject,
    hash,
    keyType,
    // node signs ECDSA as DER SEQUENCE {r, s} and RSA as PKCS#1 v1.5: what the token side returns too.
    sign: async (tbs) => sign(hash, tbs, keys.privateKey),
  });
}

describe('the DER writer', () => {
  it('writes the encodings X.690 gives', () => {
    expect(objectIdentifier('1.2.840.10045.4.3.2').toString('hex')).toBe('06082a8648ce3d040302');
    expect(objectIdentifier('2.5.4.3').toString('hex')).toBe('0603550403');
    expect(objectIdentifier('1.2.840.113549.1.1.11').toString('hex')).toBe('06092a864886f70d01010b');
    expect(integer(0).toString('hex')).toBe('020100');
    expect(integer(128).toString('hex')).toBe('02020080');
    expect(integer(Buffer.from('0000ff', 'hex')).toString('hex')).toBe('020200ff');
    expect(bitString(Buffer.from('ab', 'hex')).toString('hex')).toBe('030200ab');
    expect(printableString('Ab:1').toString('hex')).toBe('130441623a31');
    expect(utf8String('é').toString('hex')).toBe('0c02c3a9');
    expect(() => printableString('a_b')).toThrow();
    // Long form past 127 bytes.
    expect(sequence(Buffer.alloc(200)).subarray(0, 3).toString('hex')).toBe('3081c8');
    expect(sequence(Buffer.alloc(300)).subarray(0, 4).toString('hex')).toBe('3082012c');
    // SET OF members in the order of their encodings.
    expect(setOf(integer(2), integer(1)).toString('hex')).toBe('3106020101020102');
  });
});

describe.runIf(onPath('openssl'))('certificateRequest', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kc-csr-'));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function openssl(pem: string, ...args: string[]): Promise<string> {
    const file = join(dir, `${Math.random().toString(36).slice(2)}.csr`);
    await writeFile(file, pem);
    const { stdout, stderr } = await exec('openssl', ['req', '-in', file, '-noout', ...args], { timeout: 30_000 });
    return `${stdout}${stderr}`;
  }

  const cases: [keyof typeof KEYS, RequestHash, string][] = [
    ['ec-p256', 'sha256', 'ecdsa-with-SHA256'],
    ['ec-p384', 'sha384', 'ecdsa-with-SHA384'],
    ['rsa-2048', 'sha256', 'sha256WithRSAEncryption'],
    ['rsa-2048', 'sha384', 'sha384WithRSAEncryption'],
  ];
  for (const [key, hash, algorithm] of cases) {
    it(`makes a request openssl verifies: ${key} with ${hash}`, async () => {
      const request = await requestFor(KEYS[key](), hash, {
        commonName: 'alice@example.com',
        organizations: ['system:masters', 'dev team'],
      });
      expect(request.pem).toMatch(
        /^-----BEGIN CERTIFICATE REQUEST-----\n([A-Za-z0-9+/=]{64}\n)*[A-Za-z0-9+/=]{1,64}\n-----END CERTIFICATE REQUEST-----\n$/,
      );
      expect(Buffer.from(request.pem.replace(/-----[^-]+-----|\n/g, ''), 'base64').equals(request.der)).toBe(true);
      expect(await openssl(request.pem, '-verify')).toMatch(/verify OK/i);
      expect((await openssl(request.pem, '-subject')).trim()).toBe(
        'subject=O = system:masters, O = dev team, CN = alice@example.com',
      );
      const text = await openssl(request.pem, '-text');
      expect(text).toContain(`Signature Algorithm: ${algorithm}`);
      expect(text).toContain('Version: 1 (0x0)');
    });
  }

  it('keeps text outside PrintableString as UTF-8, and a request with no groups', async () => {
    const request = await requestFor(KEYS['ec-p256'](), 'sha256', {
      commonName: 'jürgen_ops',
      organizations: [],
    });
    expect(await openssl(request.pem, '-verify')).toMatch(/verify OK/i);
    expect((await openssl(request.pem, '-subject', '-nameopt', 'utf8,sep_comma_plus_space')).trim()).toBe(
      'subject=CN=jürgen_ops',
    );
  });

  it('a signature that is not the key’s fails openssl’s verification', async () => {
    const keys = KEYS['ec-p256']();
    const other = KEYS['ec-p256']();
    const request = await certificateRequest({
      spki: keys.publicKey.export({ type: 'spki', format: 'der' }),
      commonName: 'mallory',
      organizations: [],
      hash: 'sha256',
      keyType: 'ec',
      sign: async (tbs) => sign('sha256', tbs, other.privateKey),
    });
    // openssl 3.0 exits 0 either way: its words are the verdict.
    const verdict = await openssl(request.pem, '-verify').catch((error: { stderr?: string }) => error.stderr ?? '');
    expect(verdict).toMatch(/verify fail/i);
    expect(verdict).not.toMatch(/verify OK/i);
  });

  it('refuses a key of another type than asked, and names with control characters', async () => {
    const keys = KEYS['ec-p256']();
    const spki = keys.publicKey.export({ type: 'spki', format: 'der' });
    const sign = async () => Buffer.alloc(0);
    const wrongType = await brokerFailure(
      certificateRequest({ spki, commonName: 'a', organizations: [], hash: 'sha256', keyType: 'rsa', sign }),
    );
    expect(wrongType.message).toContain('an EC key, not the RSA key');
    const controls = await brokerFailure(
      certificateRequest({ spki, commonName: 'a\nb', organizations: [], hash: 'sha256', keyType: 'ec', sign }),
    );
    expect(controls.code).toBe('bad-request');
    const emptyGroup = await brokerFailure(
      certificateRequest({ spki, commonName: 'a', organizations: [''], hash: 'sha256', keyType: 'ec', sign }),
    );
    expect(emptyGroup.message).toContain('group (O)');
  });
});
