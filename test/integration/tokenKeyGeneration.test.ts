// kubecred enroll's token half against a real token (SoftHSM2 through pkcs11js): key pairs
// made on the token that can never leave it, certificate requests signed there that openssl
// verifies, and the issued certificate stored beside the key where the exec proxy finds it.
// Runs in-process, as test/integration/pkcs11Service.test.ts does.
import { execFile } from 'node:child_process';
import { X509Certificate, constants, createHash, createPublicKey, verify } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type * as Pkcs11Js from 'pkcs11js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tokenSchema, type TokenConfig } from '../../src/shared/config/schema.js';
import { BrokerError } from '../../src/main/core/brokerError.js';
import { certificateRequest } from '../../src/main/enroll/certificateRequest.js';
import { planSignature } from '../../src/main/proxy/planSignature.js';
import * as K from '../../src/main/secrets/pkcs11/constants.js';
import {
  createPkcs11Service,
  type KeyAlgorithm,
  type Pkcs11Service,
} from '../../src/main/secrets/pkcs11/pkcs11Service.js';
import { FakeClock } from '../support/fakes/fakeClock.js';
import { onPath } from '../support/onPath.js';
import { SOFTHSM_MODULE, createSoftHsm, type SoftHsm } from '../support/softhsm.js';

const exec = promisify(execFile);
// Planted: no message, hint or error text may ever show it.
const PIN = '73519246';
const SO_PIN = '86420975';

const HASH = { 'ec-p256': 'sha256', 'ec-p384': 'sha384', 'rsa-2048': 'sha256' } as const;
const TLS13_MESSAGE = Buffer.concat([
  Buffer.alloc(64, 0x20),
  Buffer.from('TLS 1.3, client CertificateVerify\0', 'latin1'),
  Buffer.alloc(32, 7),
]);

type Pkcs11 = InstanceType<typeof Pkcs11Js.PKCS11>;

/**
 * pkcs11js with its instances kept, so a test can open its own session on the module the
 * service initialized (a second C_Initialize in one process is refused), and with mechanisms
 * the token shall not list.
 */
function observedModule(seen: { instances: Pkcs11[] }, hidden: readonly number[] = []) {
  return async () => {
    const real = await import('pkcs11js');
    class Observed extends real.PKCS11 {
      constructor(libPath?: string) {
        super(libPath);
        seen.instances.push(this);
      }
      override C_GetMechanismList(slot: Buffer): number[] {
        return super.C_GetMechanismList(slot).filter((mechanism) => !hidden.includes(mechanism));
      }
    }
    return { ...real, PKCS11: Observed };
  };
}

describe.runIf(SOFTHSM_MODULE && onPath('openssl'))('keys made on the token for kubecred enroll (SoftHSM2)', () => {
  let dir: string;
  let hsm: SoftHsm;
  let token: TokenConfig;
  const open: Pkcs11Service[] = [];
  const errors: unknown[] = [];

  function start(hidden: readonly number[] = []) {
    const seen = { instances: [] as Pkcs11[] };
    const service = createPkcs11Service({
      tokens: [token],
      ui: { askPin: async () => PIN, askPassphrase: async () => null },
      clock: new FakeClock(),
      loadModule: observedModule(seen, hidden),
    });
    open.push(service);
    return { service, seen };
  }

  /** The BrokerError a call fails with, kept for the PIN check at the end. */
  async function failure(promise: Promise<unknown>): Promise<BrokerError> {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    errors.push(error);
    expect(error, 'expected a BrokerError').toBeInstanceOf(BrokerError);
    return error as BrokerError;
  }

  const openssl = (args: string[]) => exec('openssl', args, { cwd: dir, timeout: 30_000 });

  async function requestFor(service: Pkcs11Service, label: string, algorithm: KeyAlgorithm, spki: Buffer) {
    const hash = HASH[algorithm];
    return certificateRequest({
      spki,
      commonName: `user-${label}`,
      organizations: ['kubecred:enrolled'],
      hash,
      keyType: algorithm === 'rsa-2048' ? 'rsa' : 'ec',
      sign: (tbs) => service.signDigest('hsm', label, hash, createHash(hash).update(tbs).digest()),
    });
  }

  /** The CA's certificate for a request, DER, as the cluster's signer would issue it. */
  async function issue(csrPem: string, name: string): Promise<Buffer> {
    await writeFile(join(dir, `${name}.csr`), csrPem);
    const verified = await openssl(['req', '-in', `${name}.csr`, '-noout', '-verify']);
    expect(`${verified.stdout}${verified.stderr}`).toMatch(/verify OK/i);
    await openssl(
      ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-days', '2'].concat([
        '-set_serial',
        `0x${createHash('sha256').update(name).digest('hex').slice(0, 16)}`,
        '-outform',
        'DER',
        '-out',
        `${name}.der`,
      ]),
    );
    return readFile(join(dir, `${name}.der`));
  }

  /** Our own session on the module the service initialized: the login is the module's, shared. */
  function rawSession(p11: Pkcs11) {
    const slot = p11.C_GetSlotList(true).find((s) => p11.C_GetTokenInfo(s).label.trim() === hsm.label);
    if (!slot) throw new Error('SoftHSM token not found');
    const session = p11.C_OpenSession(slot, K.CKF_SERIAL_SESSION);
    const find = (template: Pkcs11Js.Template) => {
      p11.C_FindObjectsInit(session, template);
      try {
        return p11.C_FindObjects(session, 100);
      } finally {
        p11.C_FindObjectsFinal(session);
      }
    };
    const labelled = (objectClass: number, label: string) =>
      find([
        { type: K.CKA_CLASS, value: objectClass },
        { type: K.CKA_LABEL, value: label },
      ]);
    return { p11, session, find, labelled, close: () => p11.C_CloseSession(session) };
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kc-enroll-hsm-'));
    hsm = await createSoftHsm({ dir, label: 'kc-enroll', pin: PIN, soPin: SO_PIN });
    token = tokenSchema.parse({ name: 'hsm', module: hsm.module, label: hsm.label, pinGrace: '15m' });
    await openssl(
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'].concat([
        '-keyout',
        'ca.key',
        '-out',
        'ca.crt',
        '-subj',
        '/CN=kc enroll test CA',
        '-days',
        '2',
      ]),
    );
  });

  afterEach(async () => {
    for (const service of open.splice(0)) await service.close();
  });

  afterAll(async () => {
    hsm?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  for (const algorithm of ['ec-p256', 'ec-p384', 'rsa-2048'] as const) {
    it(`${algorithm}: made on the token, never leaves it, signs a request openssl verifies, and the proxy uses its certificate`, async () => {
      const { service, seen } = start();
      const label = `id-${algorithm}`;
      const spki = await service.generateKey('hsm', label, algorithm, { replace: false });
      const key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
      expect(key.asymmetricKeyType).toBe(algorithm === 'rsa-2048' ? 'rsa' : 'ec');
      if (algorithm === 'rsa-2048') expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
      else expect(key.asymmetricKeyDetails?.namedCurve).toBe(algorithm === 'ec-p256' ? 'prime256v1' : 'secp384r1');
      expect((await service.publicKeyOf('hsm', label)).equals(spki)).toBe(true);

      const facts = await service.keyFacts('hsm', label);
      expect(facts).toMatchObject({
        label,
        keyType: algorithm === 'rsa-2048' ? 'rsa' : 'ec',
        sensitive: true,
        extractable: false,
        neverExtractable: true,
        alwaysSensitive: true,
        local: true,
        pending: false,
      });
      expect(facts.id).toMatch(/^[0-9a-f]{40}$/);
      if (algorithm === 'rsa-2048') expect(facts.bits).toBe(2048);
      else expect(facts.curve).toBe(algorithm === 'ec-p256' ? 'P-256' : 'P-384');

      // Logged in (the service is), the token still refuses the private key's secret part.
      const raw = rawSession(seen.instances[0]!);
      try {
        const [privateKey] = raw.labelled(K.CKO_PRIVATE_KEY, label);
        const secret = algorithm === 'rsa-2048' ? K.CKA_PRIVATE_EXPONENT : K.CKA_VALUE;
        expect(() => raw.p11.C_GetAttributeValue(raw.session, privateKey!, [{ type: secret }])).toThrow(
          /CKR_ATTRIBUTE_SENSITIVE/,
        );
        // Key pair and (later) certificate share one CKA_ID.
        const [publicKey] = raw.labelled(K.CKO_PUBLIC_KEY, label);
        const idOf = (object: Buffer) =>
          raw.p11.C_GetAttributeValue(raw.session, object, [{ type: K.CKA_ID }])[0]!.value.toString('hex');
        expect(idOf(privateKey!)).toBe(facts.id);
        expect(idOf(publicKey!)).toBe(facts.id);
      } finally {
        raw.close();
      }

      const csr = await requestFor(service, label, algorithm, spki);
      const subject = await openssl(['req', '-noout', '-subject', '-in', await written(`${label}.csr`, csr.pem)]);
      expect(subject.stdout.trim()).toBe(`subject=O = kubecred:enrolled, CN = user-${label}`);
      const der = await issue(csr.pem, label);
      await service.storeCertificate('hsm', label, der);

      // What the exec proxy reads: the certificate, its key type, a TLS 1.3 signature with the key.
      const tokenKey = await service.tokenKey('hsm', label);
      expect(new X509Certificate(tokenKey.certificatePem).raw.equals(der)).toBe(true);
      expect(tokenKey.keyType).toBe(algorithm === 'rsa-2048' ? 'rsa' : 'ec');
      const scheme =
        algorithm === 'rsa-2048' ? 'rsa_pss_sha256' : algorithm === 'ec-p256' ? 'ecdsa_sha256' : 'ecdsa_sha384';
      const signature = await service.sign('hsm', label, planSignature(scheme, TLS13_MESSAGE, tokenKey.keyType));
      const certificateKey = new X509Certificate(der).publicKey;
      expect(
        algorithm === 'rsa-2048'
          ? verify(
              'sha256',
              TLS13_MESSAGE,
              { key: certificateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 },
              signature,
            )
          : verify(HASH[algorithm], TLS13_MESSAGE, { key: certificateKey, dsaEncoding: 'ieee-p1363' }, signature),
      ).toBe(true);
      // The certificate and key are found as a pair; the key is refused for an ExecCredential only because it cannot leave.
      const exported = await failure(service.clientCertificate('hsm', label));
      expect(exported.code).toBe('not-extractable');

      // The certificate sits on the token with the attributes PKCS#11 asks for.
      const again = rawSession(seen.instances[0]!);
      try {
        const [certificate] = again.labelled(K.CKO_CERTIFICATE, label);
        const read = (type: number) => again.p11.C_GetAttributeValue(again.session, certificate!, [{ type }])[0]!.value;
        expect(read(K.CKA_ID).toString('hex')).toBe(facts.id);
        expect(read(K.CKA_VALUE).equals(der)).toBe(true);
        expect(der.includes(read(K.CKA_SUBJECT))).toBe(true);
        expect(der.includes(read(K.CKA_ISSUER))).toBe(true);
        expect(read(K.CKA_SERIAL_NUMBER)[0]).toBe(0x02);
      } finally {
        again.close();
      }
    });
  }

  it('refuses a label in use, a certificate for another key, a digest of the wrong size, and an unknown label', async () => {
    const { service } = start();
    await service.generateKey('hsm', 'taken', 'ec-p256', { replace: false });
    const taken = await failure(service.generateKey('hsm', 'taken', 'ec-p256', { replace: false }));
    expect(taken.code).toBe('bad-request');
    expect(taken.message).toBe('token "hsm" (label "kc-enroll") already holds a key or certificate labelled "taken"');
    expect(taken.hint).toContain('another label');

    await openssl(
      ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'].concat([
        '-keyout',
        'stranger.key',
        '-out',
        'stranger.csr',
        '-subj',
        '/CN=stranger',
      ]),
    );
    const stranger = await issue(await readFile(join(dir, 'stranger.csr'), 'utf8'), 'stranger');
    const foreign = await failure(service.storeCertificate('hsm', 'taken', stranger));
    expect(foreign.code).toBe('bad-request');
    expect(foreign.message).toContain('is not for the key pair labelled "taken"');
    const notCertificate = await failure(service.storeCertificate('hsm', 'taken', Buffer.from('not a certificate')));
    expect(notCertificate.message).toContain('not a DER X.509 certificate');
    // Nothing was written by the refusals.
    expect((await failure(service.tokenKey('hsm', 'taken'))).message).toContain(
      'no X.509 certificate labelled "taken"',
    );

    const message = await failure(service.signDigest('hsm', 'taken', 'sha256', Buffer.from('the whole message')));
    expect(message.message).toContain('signs digests, not messages');
    const unknown = await failure(service.publicKeyOf('hsm', 'nobody'));
    expect(unknown.code).toBe('secret-missing');
    expect(unknown.message).toContain('no private key labelled "nobody"');
    const reserved = await failure(service.generateKey('hsm', 'kubecred-pending/x', 'ec-p256', { replace: true }));
    expect(reserved.code).toBe('bad-request');
  });

  it('renewal with a new key: the old identity keeps working until the new certificate is stored, then is gone', async () => {
    const { service, seen } = start();
    const label = 'renewed';
    const oldSpki = await service.generateKey('hsm', label, 'ec-p256', { replace: false });
    const oldDer = await issue((await requestFor(service, label, 'ec-p256', oldSpki)).pem, 'renewed-1');
    await service.storeCertificate('hsm', label, oldDer);
    const oldFacts = await service.keyFacts('hsm', label);

    // A renewal never finished is replaced by the next one.
    const abandoned = await service.generateKey('hsm', label, 'ec-p256', { replace: true });
    const newSpki = await service.generateKey('hsm', label, 'ec-p384', { replace: true });
    expect(newSpki.equals(oldSpki)).toBe(false);
    expect(newSpki.equals(abandoned)).toBe(false);
    expect((await service.publicKeyOf('hsm', label)).equals(newSpki)).toBe(true);
    expect(await service.keyFacts('hsm', label)).toMatchObject({ pending: true, curve: 'P-384' });
    const waiting = rawSession(seen.instances[0]!);
    try {
      expect(waiting.labelled(K.CKO_PRIVATE_KEY, `kubecred-pending/${label}`)).toHaveLength(1);
      expect(waiting.labelled(K.CKO_PRIVATE_KEY, label)).toHaveLength(1);
    } finally {
      waiting.close();
    }
    // Meanwhile the proxy still signs with the old key for the old certificate.
    const oldKey = await service.tokenKey('hsm', label);
    expect(new X509Certificate(oldKey.certificatePem).raw.equals(oldDer)).toBe(true);
    const signature = await service.sign('hsm', label, planSignature('ecdsa_sha256', TLS13_MESSAGE, 'ec'));
    expect(
      verify(
        'sha256',
        TLS13_MESSAGE,
        { key: new X509Certificate(oldDer).publicKey, dsaEncoding: 'ieee-p1363' },
        signature,
      ),
    ).toBe(true);
    const newDer = await issue((await requestFor(service, label, 'ec-p384', newSpki)).pem, 'renewed-2');
    await service.storeCertificate('hsm', label, newDer);
    const newKey = await service.tokenKey('hsm', label);
    expect(new X509Certificate(newKey.certificatePem).raw.equals(newDer)).toBe(true);
    const newSignature = await service.sign('hsm', label, planSignature('ecdsa_sha384', TLS13_MESSAGE, 'ec'));
    expect(
      verify(
        'sha384',
        TLS13_MESSAGE,
        { key: new X509Certificate(newDer).publicKey, dsaEncoding: 'ieee-p1363' },
        newSignature,
      ),
    ).toBe(true);
    const newFacts = await service.keyFacts('hsm', label);
    expect(newFacts).toMatchObject({ pending: false, curve: 'P-384', sensitive: true, extractable: false });
    expect(newFacts.id).not.toBe(oldFacts.id);

    // One key pair and one certificate answer to the label; nothing waits any more.
    const raw = rawSession(seen.instances[0]!);
    try {
      for (const objectClass of [K.CKO_PRIVATE_KEY, K.CKO_PUBLIC_KEY, K.CKO_CERTIFICATE]) {
        expect(raw.labelled(objectClass, label)).toHaveLength(1);
        expect(raw.labelled(objectClass, `kubecred-pending/${label}`)).toHaveLength(0);
      }
      expect(raw.find([{ type: K.CKA_ID, value: Buffer.from(oldFacts.id, 'hex') }])).toHaveLength(0);
    } finally {
      raw.close();
    }
  });

  it('renewal with the same key replaces only the certificate', async () => {
    const { service, seen } = start();
    const label = 'same-key';
    const spki = await service.generateKey('hsm', label, 'rsa-2048', { replace: false });
    await service.storeCertificate(
      'hsm',
      label,
      await issue((await requestFor(service, label, 'rsa-2048', spki)).pem, 'same-1'),
    );
    const facts = await service.keyFacts('hsm', label);
    const renewed = await issue(
      (await requestFor(service, label, 'rsa-2048', await service.publicKeyOf('hsm', label))).pem,
      'same-2',
    );
    await service.storeCertificate('hsm', label, renewed);
    expect(new X509Certificate((await service.tokenKey('hsm', label)).certificatePem).raw.equals(renewed)).toBe(true);
    expect((await service.keyFacts('hsm', label)).id).toBe(facts.id);
    const raw = rawSession(seen.instances[0]!);
    try {
      expect(raw.labelled(K.CKO_CERTIFICATE, label)).toHaveLength(1);
      expect(raw.labelled(K.CKO_PRIVATE_KEY, label)).toHaveLength(1);
    } finally {
      raw.close();
    }
  });

  it('a token without CKM_EC_KEY_PAIR_GEN is refused before anything is made, saying what to do', async () => {
    const { service, seen } = start([K.CKM_EC_KEY_PAIR_GEN]);
    expect(await service.keyAlgorithms('hsm')).toEqual([
      { algorithm: 'ec-p256', supported: false, missing: 'it offers no CKM_EC_KEY_PAIR_GEN' },
      { algorithm: 'ec-p384', supported: false, missing: 'it offers no CKM_EC_KEY_PAIR_GEN' },
      { algorithm: 'rsa-2048', supported: true },
    ]);
    const refused = await failure(service.generateKey('hsm', 'no-ec', 'ec-p256', { replace: false }));
    expect(refused.code).toBe('bad-request');
    expect(refused.message).toBe(
      'token "hsm" (label "kc-enroll") cannot make ec-p256 keys: it offers no CKM_EC_KEY_PAIR_GEN',
    );
    expect(refused.hint).toBe(
      'choose another algorithm with --key-type (this token can make rsa-2048), or use another token',
    );
    const raw = rawSession(seen.instances[0]!);
    try {
      expect(raw.labelled(K.CKO_PRIVATE_KEY, 'no-ec')).toHaveLength(0);
      expect(raw.labelled(K.CKO_PUBLIC_KEY, 'no-ec')).toHaveLength(0);
    } finally {
      raw.close();
    }
  });

  it('no error said the PIN', () => {
    expect(errors.length).toBeGreaterThan(8);
    for (const error of errors) {
      const { message, hint, stack } = error as BrokerError;
      for (const text of [message, hint ?? '', stack ?? '', JSON.stringify(error)]) expect(text).not.toContain(PIN);
    }
  });

  async function written(name: string, text: string): Promise<string> {
    await writeFile(join(dir, name), text);
    return name;
  }
});
