// The PKCS#11 plugin against a real token: SoftHSM2 through pkcs11js, objects written with
// OpenSC's pkcs11-tool and keys made by openssl. Runs in-process (no broker): the service
// is what the broker composes.
import { execFile } from 'node:child_process';
import { X509Certificate, createPrivateKey, createPublicKey, verify } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type * as Pkcs11Js from 'pkcs11js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { tokenSchema, type TokenConfig } from '../../src/shared/config/schema.js';
import type { PinRequest, SecretPromptPort } from '../../src/main/core/uiPorts.js';
import * as K from '../../src/main/secrets/pkcs11/constants.js';
import { createPkcs11Service, type Pkcs11Service } from '../../src/main/secrets/pkcs11/pkcs11Service.js';
import { planSignature } from '../../src/main/proxy/planSignature.js';
import { SOFTHSM_MODULE, createExtractableKey, createSoftHsm, pkcs11Tool, type SoftHsm } from '../support/softhsm.js';
import { FakeClock } from '../support/fakes/fakeClock.js';
import { brokerFailure } from '../support/brokerFailure.js';

const exec = promisify(execFile);
const PIN = '246810';
const WRONG_PIN = '999999';
const SO_PIN = '13572468';
const SECOND_PIN = '112233';
const PLANTED = 'kc-pkcs11-planted-3f9a1c';

/** pkcs11js with every C_Initialize, C_Login and new PKCS11 counted. */
interface Counts {
  imports: number;
  instances: number;
  initializes: number;
  logins: number;
}

function countingModule(counts: Counts): () => Promise<typeof Pkcs11Js> {
  return async () => {
    counts.imports++;
    const real = await import('pkcs11js');
    class Counting extends real.PKCS11 {
      constructor(libPath?: string) {
        super(libPath);
        counts.instances++;
      }
      override C_Initialize(options?: Pkcs11Js.InitializationOptions): void {
        counts.initializes++;
        super.C_Initialize(options);
      }
      override C_Login(session: Buffer, userType: number, pin?: string): void {
        counts.logins++;
        super.C_Login(session, userType, pin);
      }
    }
    return { ...real, PKCS11: Counting };
  };
}

/**
 * pkcs11js over SoftHSM2 as a slow card behaves: each signature takes `ms` (a touch, a PIN
 * pad). The blocking C_Sign holds the calling thread that long; C_SignAsync waits off it.
 */
function slowSigningModule(
  ms: number,
  seen: { flags: (number | undefined)[]; sync: number; async: number },
): () => Promise<typeof Pkcs11Js> {
  return async () => {
    const real = await import('pkcs11js');
    class SlowCard extends real.PKCS11 {
      // pkcs11js puts its wrapped C_ functions on each instance (C_SignAsync among them), so
      // the slow ones replace those, not the prototype's.
      constructor(libPath?: string) {
        super(libPath);
        const signNow = this.C_Sign.bind(this);
        const signLater = this.C_SignAsync.bind(this);
        this.C_Sign = ((session: Buffer, data: Buffer, out: Buffer) => {
          seen.sync++;
          const until = Date.now() + ms;
          while (Date.now() < until) {
            // the card is thinking, and so is this thread
          }
          return signNow(session, data, out);
        }) as typeof this.C_Sign;
        this.C_SignAsync = async (session: Buffer, data: Buffer, out: Buffer) => {
          seen.async++;
          await new Promise((resolve) => setTimeout(resolve, ms));
          return signLater(session, data, out);
        };
      }
      override C_Initialize(options?: Pkcs11Js.InitializationOptions): void {
        seen.flags.push(options?.flags);
        super.C_Initialize(options);
      }
    }
    return { ...real, PKCS11: SlowCard };
  };
}

describe.skipIf(!SOFTHSM_MODULE)('PKCS#11 tokens (SoftHSM2)', () => {
  let dir: string;
  let hsm: SoftHsm;
  let token: TokenConfig;
  let second: TokenConfig;
  let ecCertPem: string;
  let rsaCertPem: string;
  const open: Pkcs11Service[] = [];

  function start(options: { tokens?: TokenConfig[]; pins?: (string | null)[]; clock?: FakeClock } = {}) {
    const counts: Counts = { imports: 0, instances: 0, initializes: 0, logins: 0 };
    const answers = [...(options.pins ?? [])];
    const askPin = vi.fn(async (request: PinRequest) => {
      if (answers.length > 0) return answers.shift() as string | null;
      return request.token === 'second' ? SECOND_PIN : PIN;
    });
    const ui: SecretPromptPort = { askPin, askPassphrase: async () => null };
    const clock = options.clock ?? new FakeClock();
    const service = createPkcs11Service({
      tokens: options.tokens ?? [token],
      ui,
      clock,
      loadModule: countingModule(counts),
    });
    open.push(service);
    return { service, askPin, counts, clock, store: service.secretStore('hsm') };
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kc-hsm-'));
    hsm = await createSoftHsm({ dir, label: 'kc-test', pin: PIN, soPin: SO_PIN });
    const other = await hsm.addToken('kc-second', SECOND_PIN, SO_PIN);
    token = tokenSchema.parse({ name: 'hsm', module: hsm.module, label: hsm.label, pinGrace: '15m' });
    second = tokenSchema.parse({ name: 'second', module: hsm.module, serial: other.serial });

    // Client certificates made by openssl; certificates go to the token with pkcs11-tool.
    const openssl = (args: string[]) => exec('openssl', args, { cwd: dir, timeout: 30_000 });
    await openssl([
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      'ec.key',
      '-out',
      'ec.crt',
      '-subj',
      '/CN=kc-ec',
      '-days',
      '2',
    ]);
    await openssl([
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'rsa.key',
      '-out',
      'rsa.crt',
      '-subj',
      '/CN=kc-rsa',
      '-days',
      '2',
    ]);
    ecCertPem = await readFile(join(dir, 'ec.crt'), 'utf8');
    rsaCertPem = await readFile(join(dir, 'rsa.crt'), 'utf8');
    for (const name of ['ec', 'rsa']) {
      await openssl(['x509', '-in', `${name}.crt`, '-outform', 'DER', '-out', `${name}.crt.der`]);
    }
    await openssl(['pkey', '-in', 'ec.key', '-outform', 'DER', '-out', 'ec.key.der']);
    const login = ['--token-label', hsm.label, '--login', '--pin', PIN];
    const write = (file: string, type: string, label: string, id: string, extra: string[] = []) =>
      pkcs11Tool(hsm, [
        ...login,
        '--write-object',
        join(dir, file),
        '--type',
        type,
        '--label',
        label,
        '--id',
        id,
        ...extra,
      ]);
    await write('ec.crt.der', 'cert', 'ec-client', '01');
    await write('rsa.crt.der', 'cert', 'rsa-client', '02');
    await write('ec.crt.der', 'cert', 'hw-client', '03');
    await write('ec.crt.der', 'cert', 'imported-sensitive', '04');
    // A key made on the token: CKA_SENSITIVE, never extractable, like a smart card's.
    await pkcs11Tool(hsm, [
      ...login,
      '--keypairgen',
      '--key-type',
      'EC:prime256v1',
      '--label',
      'hw-client',
      '--id',
      '03',
    ]);
    // pkcs11-tool imports private keys sensitive (SoftHSM's default), extractable or not.
    await write('ec.key.der', 'privkey', 'imported-sensitive', '04', ['--extractable']);
    // Extractable, non-sensitive keys need a template pkcs11-tool cannot write: C_CreateObject.
    await createExtractableKey(hsm, PIN, {
      pem: await readFile(join(dir, 'ec.key'), 'utf8'),
      label: 'ec-client',
      id: 1,
    });
    await createExtractableKey(hsm, PIN, {
      pem: await readFile(join(dir, 'rsa.key'), 'utf8'),
      label: 'rsa-key-with-another-label',
      id: 2,
    });
  });

  afterEach(async () => {
    for (const service of open.splice(0)) await service.close();
  });

  afterAll(async () => {
    hsm?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('uses the PKCS#11 numbers pkcs11js uses', async () => {
    const real = (await import('pkcs11js')).default as unknown as Record<string, number | undefined>;
    const ours = Object.entries({ ...K, ...K.CKR }).filter(([name]) => name !== 'CKR') as [string, number][];
    // pkcs11js has no CKS_* (session states); the rest it exports.
    const compared = ours.filter(([name]) => !name.startsWith('CKS_'));
    expect(compared.map(([name]) => [name, real[name]])).toEqual(compared);
    expect(compared.length).toBeGreaterThan(50);
  });

  it('loads pkcs11js on the first token operation, not when the service is made', async () => {
    const { service, counts, store } = start();
    expect(counts.imports).toBe(0);
    expect(counts.instances).toBe(0);
    await store.list('nobody');
    expect(counts).toMatchObject({ imports: 1, instances: 1, initializes: 1 });
    await service.listTokens();
    expect(counts.imports).toBe(1);
  });

  it('stores, serves, lists, replaces and deletes secrets; they stay on the token', async () => {
    const { store, askPin, counts } = start();
    const big = 'k'.repeat(16 * 1024);
    await store.set({ profile: 'demo', field: 'token' }, PLANTED);
    await store.set({ profile: 'demo', field: 'client-key' }, big);
    await store.set({ profile: 'other', field: 'token' }, 'other-value');
    expect(await store.get({ profile: 'demo', field: 'token' })).toBe(PLANTED);
    expect(await store.get({ profile: 'demo', field: 'client-key' })).toBe(big);
    expect(await store.get({ profile: 'demo', field: 'password' })).toBeUndefined();
    expect(await store.list('demo')).toEqual(['client-key', 'token']);
    expect(await store.list('other')).toEqual(['token']);
    expect(store.name).toBe('token:hsm');

    await store.set({ profile: 'demo', field: 'token' }, `${PLANTED}-2`);
    expect(await store.get({ profile: 'demo', field: 'token' })).toBe(`${PLANTED}-2`);
    expect(await store.delete({ profile: 'other', field: 'token' })).toBe(true);
    expect(await store.delete({ profile: 'other', field: 'token' })).toBe(false);
    expect(await store.list('other')).toEqual([]);
    // One prompt and one C_Login served all of that.
    expect(askPin).toHaveBeenCalledTimes(1);
    expect(askPin.mock.calls[0]?.[0]).toMatchObject({ token: 'hsm', tokenLabel: 'kc-test', flags: { locked: false } });
    expect(counts.logins).toBe(1);

    await open.splice(0)[0]?.close();
    const again = start();
    expect(await again.store.get({ profile: 'demo', field: 'token' })).toBe(`${PLANTED}-2`);
    expect(await again.store.get({ profile: 'demo', field: 'client-key' })).toBe(big);
  });

  it('lists tokens without a PIN, private objects only when logged in, never values', async () => {
    const { service, store, askPin } = start({ tokens: [token, second] });
    const [before, other] = await service.listTokens();
    expect(askPin).not.toHaveBeenCalled();
    expect(before).toMatchObject({
      name: 'hsm',
      present: true,
      loggedIn: false,
      label: 'kc-test',
      serial: hsm.serial,
      model: 'SoftHSM v2',
    });
    expect(before?.slotId).toMatch(/^\d+$/);
    expect(before?.objects.map((o) => o.kind)).not.toContain('private-key');
    expect(before?.objects).toContainEqual({ kind: 'certificate', label: 'ec-client' });
    expect(other).toMatchObject({ name: 'second', present: true, label: 'kc-second', loggedIn: false });

    await store.set({ profile: 'listed', field: 'token' }, PLANTED);
    const [after] = await service.listTokens();
    expect(after?.loggedIn).toBe(true);
    expect(after?.objects).toContainEqual({ kind: 'data', label: 'listed/token', application: 'kubecred' });
    expect(after?.objects).toContainEqual({ kind: 'private-key', label: 'hw-client' });
    expect(JSON.stringify(after)).not.toContain(PLANTED);
  });

  it('asks for the PIN again only after the grace period (injected clock)', async () => {
    const clock = new FakeClock();
    const { store, askPin, counts } = start({ clock });
    const ref = { profile: 'grace', field: 'token' };
    await store.set(ref, PLANTED);
    expect(askPin).toHaveBeenCalledTimes(1);
    clock.advance(14 * 60_000);
    expect(await store.get(ref)).toBe(PLANTED);
    expect(askPin).toHaveBeenCalledTimes(1);
    clock.advance(2 * 60_000);
    expect(await store.get(ref)).toBe(PLANTED);
    expect(askPin).toHaveBeenCalledTimes(2);
    expect(counts.logins).toBe(2);
  });

  it('spends exactly one C_Login per wrong PIN, never retries, then takes the right one', async () => {
    const { service, store, askPin, counts } = start({ pins: [WRONG_PIN, WRONG_PIN, PIN] });
    const ref = { profile: 'wrong', field: 'token' };

    const first = await brokerFailure(store.get(ref));
    expect(first.code).toBe('pin-incorrect');
    expect(first.message).toContain('token "hsm"');
    expect(first.message).toContain('tries are low');
    expect(first.hint).toContain('nothing was retried');
    expect(`${first.message} ${first.hint}`).not.toContain(WRONG_PIN);
    expect(counts.logins).toBe(1);
    expect(askPin).toHaveBeenCalledTimes(1);
    // C_GetTokenInfo after the failure: SoftHSM sets CKF_USER_PIN_COUNT_LOW.
    const [afterWrong] = await service.listTokens();
    expect(afterWrong?.flags).toEqual({ countLow: true, finalTry: false, locked: false });

    await brokerFailure(store.get(ref));
    expect(counts.logins).toBe(2);
    expect(askPin).toHaveBeenCalledTimes(2);
    // The next prompt tells the user the token's tries are low.
    expect(askPin.mock.calls[1]?.[0].flags.countLow).toBe(true);

    expect(await store.get(ref)).toBeUndefined();
    expect(counts.logins).toBe(3);
    const [afterRight] = await service.listTokens();
    expect(afterRight?.flags?.countLow).toBe(false);
  });

  it('a cancelled prompt reports locked and sends no PIN', async () => {
    const { store, counts } = start({ pins: [null] });
    const error = await brokerFailure(store.get({ profile: 'demo', field: 'token' }));
    expect(error.code).toBe('locked');
    expect(error.hint).toBe('run: kubecred token login hsm');
    expect(counts.logins).toBe(0);
  });

  it('login() is one C_Login and serves the grace; logout and lockAll forget the PIN', async () => {
    const { service, store, askPin, counts } = start();
    const ref = { profile: 'demo', field: 'token' };
    const wrong = await brokerFailure(service.login('hsm', WRONG_PIN));
    expect(wrong.code).toBe('pin-incorrect');
    expect(counts.logins).toBe(1);
    await service.login('hsm', PIN);
    expect(counts.logins).toBe(2);
    await store.get(ref);
    expect(askPin).not.toHaveBeenCalled();

    await service.logout('hsm');
    expect((await service.listTokens())[0]?.loggedIn).toBe(false);
    await store.get(ref);
    expect(askPin).toHaveBeenCalledTimes(1);

    await service.lockAll();
    expect((await service.listTokens())[0]?.loggedIn).toBe(false);
    await store.get(ref);
    expect(askPin).toHaveBeenCalledTimes(2);
    expect((await brokerFailure(service.logout('nope'))).code).toBe('not-found');
  });

  it('signs off the main thread: timers keep firing while a slow card signs, and another operation on the token waits its turn', async () => {
    const seen = { flags: [] as (number | undefined)[], sync: 0, async: 0 };
    const service = createPkcs11Service({
      tokens: [token],
      ui: { askPin: async () => PIN, askPassphrase: async () => null },
      clock: new FakeClock(),
      loadModule: slowSigningModule(400, seen),
    });
    open.push(service);
    await service.login('hsm', PIN);
    const message = Buffer.concat([
      Buffer.alloc(64, 0x20),
      Buffer.from('TLS 1.3, client CertificateVerify\0', 'latin1'),
      Buffer.alloc(32, 9),
    ]);
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 20);
    try {
      const [signature, secrets] = await Promise.all([
        service.sign('hsm', 'ec-client', planSignature('ecdsa_sha256', message, 'ec')),
        service.secretStore('hsm').list('nobody'),
      ]);
      // r||s from the token, checked against the certificate's key.
      expect(
        verify(
          'sha256',
          message,
          { key: new X509Certificate(ecCertPem).publicKey, dsaEncoding: 'ieee-p1363' },
          signature,
        ),
      ).toBe(true);
      expect(secrets).toEqual([]);
    } finally {
      clearInterval(ticker);
    }
    expect(seen.flags[0]! & K.CKF_OS_LOCKING_OK).toBe(K.CKF_OS_LOCKING_OK);
    expect({ sync: seen.sync, async: seen.async }).toEqual({ sync: 0, async: 1 });
    // 400 ms of signing: a thread held by C_Sign would have let no tick through.
    expect(ticks).toBeGreaterThanOrEqual(10);
  });

  it('two tokens on one module share its C_Initialize', async () => {
    const { service, counts } = start({ tokens: [token, second] });
    await service.secretStore('hsm').set({ profile: 'a', field: 'token' }, 'one');
    await service.secretStore('second').set({ profile: 'a', field: 'token' }, 'two');
    expect(await service.secretStore('hsm').get({ profile: 'a', field: 'token' })).toBe('one');
    expect(await service.secretStore('second').get({ profile: 'a', field: 'token' })).toBe('two');
    expect(counts).toMatchObject({ imports: 1, instances: 1, initializes: 1, logins: 2 });
  });

  it('reports a removed token clearly and uses it again once it is back, without a restart', async () => {
    const { service, store, askPin } = start();
    const ref = { profile: 'removal', field: 'token' };
    await store.set(ref, PLANTED);
    await hsm.remove();
    try {
      const gone = await brokerFailure(store.get(ref));
      expect(gone.code).toBe('token-unavailable');
      expect(gone.message).toContain('token "hsm" (label "kc-test")');
      expect(gone.hint).toMatch(/insert the token|reconnect the token/);
      const again = await brokerFailure(store.get(ref));
      expect(again.code).toBe('token-unavailable');
      const [listed] = await service.listTokens();
      expect(listed).toMatchObject({ present: false, loggedIn: false });
      expect(listed?.problem).toContain('is not present');
    } finally {
      await hsm.restore();
    }
    expect(await store.get(ref)).toBe(PLANTED);
    // The PIN went with the token: it is asked for again.
    expect(askPin).toHaveBeenCalledTimes(2);
  });

  it('a missing module is a clear error, not a crash', async () => {
    const ghost = tokenSchema.parse({ name: 'ghost', module: join(dir, 'no-such-pkcs11.so'), label: 'x' });
    const { service } = start({ tokens: [ghost] });
    const error = await brokerFailure(service.secretStore('ghost').get({ profile: 'demo', field: 'token' }));
    expect(error.code).toBe('token-unavailable');
    expect(error.message).toContain('token "ghost"');
    expect(error.message).toContain('no-such-pkcs11.so could not be loaded');
    expect(error.message).toContain('No such file');
    expect(error.hint).toContain('tokens[].module');
    const [listed] = await service.listTokens();
    expect(listed).toMatchObject({ name: 'ghost', present: false });
    expect(listed?.problem).toContain('could not be loaded');
  });

  it('exports an extractable EC key with its certificate as a matching PEM pair', async () => {
    const { service } = start();
    const pair = await service.clientCertificate('hsm', 'ec-client');
    expectMatchingPair(pair, ecCertPem);
  });

  it('finds an RSA key by the certificate CKA_ID when the labels differ', async () => {
    const { service } = start();
    const pair = await service.clientCertificate('hsm', 'rsa-client');
    expectMatchingPair(pair, rsaCertPem);
  });

  it('refuses keys that cannot leave the token, and says what works instead', async () => {
    const { service } = start();
    for (const label of ['hw-client', 'imported-sensitive']) {
      const error = await brokerFailure(service.clientCertificate('hsm', label));
      expect(error.code).toBe('not-extractable');
      expect(error.message).toContain('cannot leave the token');
      expect(error.message).toContain('ExecCredential');
      // What works instead: the exec proxy, which signs with the key where it is.
      expect(error.hint).toContain('proxy:');
      expect(error.hint).toContain('docs/exec-proxy.md');
    }
    const missing = await brokerFailure(service.clientCertificate('hsm', 'no-such-cert'));
    expect(missing.code).toBe('secret-missing');
    expect(missing.message).toContain('no X.509 certificate labelled "no-such-cert"');
  });
});

function expectMatchingPair(pair: { certificatePem: string; keyPem: string }, expectedCertPem: string): void {
  expect(pair.keyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
  expect(pair.certificatePem).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
  expect(new X509Certificate(pair.certificatePem).fingerprint256).toBe(
    new X509Certificate(expectedCertPem).fingerprint256,
  );
  const fromCert = createPublicKey(pair.certificatePem).export({ type: 'spki', format: 'der' });
  const fromKey = createPublicKey(createPrivateKey(pair.keyPem)).export({ type: 'spki', format: 'der' });
  expect(fromKey.equals(fromCert)).toBe(true);
}

/**
 * Writes the openssl keys as extractable, non-sensitive private keys: the EC one labelled
 * like its certificate, the RSA one under another label but the certificate's CKA_ID.
 */
