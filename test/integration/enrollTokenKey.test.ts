// The token half of issue 41's enroll fixes, judged on a real token (SoftHSM2) with pkcs11-tool:
// a key made for enroll can only sign (D8), and a key whose enrollment got no certificate is
// removed, while one with a certificate beside it never is.
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tokenSchema, type TokenConfig } from '../../src/shared/config/schema.js';
import { BrokerError } from '../../src/main/core/brokerError.js';
import { createPkcs11Service, type Pkcs11Service } from '../../src/main/secrets/pkcs11/pkcs11Service.js';
import { FakeClock } from '../support/fakes/fakeClock.js';
import { onPath } from '../support/onPath.js';
import { SOFTHSM_MODULE, createSoftHsm, pkcs11Tool, type SoftHsm } from '../support/softhsm.js';

const exec = promisify(execFile);
const PIN = '52718281';

describe.runIf(SOFTHSM_MODULE && onPath('openssl') && onPath('pkcs11-tool'))(
  'enroll keys on a real token: sign only, and gone with a failed enrollment',
  () => {
    let dir: string;
    let hsm: SoftHsm;
    let token: TokenConfig;
    let service: Pkcs11Service;
    const privateKeys = () => pkcs11Tool(hsm, ['--login', '--pin', PIN, '--list-objects', '--type', 'privkey']);
    const publicKeys = () => pkcs11Tool(hsm, ['--list-objects', '--type', 'pubkey']);

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'kc-enroll-key-'));
      hsm = await createSoftHsm({ dir, label: 'kc-key', pin: PIN, soPin: '11223344' });
      token = tokenSchema.parse({ name: 'hsm', module: hsm.module, label: hsm.label });
    });
    afterEach(async () => {
      await service?.close();
    });
    afterAll(async () => {
      hsm?.dispose();
      if (dir) await rm(dir, { recursive: true, force: true });
    });
    const start = () =>
      (service = createPkcs11Service({
        tokens: [token],
        ui: { askPin: async () => PIN, askPassphrase: async () => null },
        clock: new FakeClock(),
      }));

    it.each(['ec-p256', 'rsa-2048'] as const)(
      '%s: the private key may sign and nothing else (no decrypt, unwrap or derive)',
      async (algorithm) => {
        const label = `only-signs-${algorithm}`;
        await start().generateKey('hsm', label, algorithm, { replace: false });
        const listed = await privateKeys();
        const entry = listed.split(/\n(?=Private Key Object)/).find((block) => block.includes(`label:      ${label}`));
        expect(entry, listed).toBeDefined();
        expect(entry).toMatch(/Usage:\s+sign\s*\n/);
        expect(entry).not.toMatch(/decrypt|unwrap|derive/);
        expect(entry).toMatch(/Access:\s+sensitive, always sensitive, never extractable, local/);
      },
    );

    it('a key without a certificate goes with discardKey; the label is free again', async () => {
      const tokenKeys = start();
      const spki = await tokenKeys.generateKey('hsm', 'denied', 'ec-p256', { replace: false });
      expect(await privateKeys()).toContain('label:      denied');
      expect(await tokenKeys.discardKey('hsm', 'denied', spki)).toBe(true);
      expect(await privateKeys()).not.toContain('label:      denied');
      expect(await publicKeys()).not.toContain('label:      denied');
      // Enrolling again under the label is not refused.
      await tokenKeys.generateKey('hsm', 'denied', 'ec-p256', { replace: false });
      expect(await tokenKeys.discardKey('hsm', 'nothing-here', spki)).toBe(false);
    });

    it('a key with its certificate beside it is never removed: only a renewal’s waiting key goes', async () => {
      const tokenKeys = start();
      const spki = await tokenKeys.generateKey('hsm', 'in-use', 'ec-p256', { replace: false });
      await tokenKeys.storeCertificate('hsm', 'in-use', await selfIssued(spki, 'in-use'));
      expect(await tokenKeys.discardKey('hsm', 'in-use', spki)).toBe(false);
      expect(await privateKeys()).toContain('label:      in-use');

      // A renewal with a new key that was denied: its waiting key goes, the identity stays.
      const waiting = await tokenKeys.generateKey('hsm', 'in-use', 'ec-p256', { replace: true });
      expect(await privateKeys()).toContain('kubecred-pending/in-use');
      expect(await tokenKeys.discardKey('hsm', 'in-use', waiting)).toBe(true);
      const after = await privateKeys();
      expect(after).not.toContain('kubecred-pending/in-use');
      expect(after).toContain('label:      in-use');
      expect((await tokenKeys.publicKeyOf('hsm', 'in-use')).equals(spki)).toBe(true);
    });

    it('an enrolled certificate is read without the PIN (status after a restart)', async () => {
      const tokenKeys = start();
      const spki = await tokenKeys.generateKey('hsm', 'status', 'ec-p256', { replace: false });
      const der = await selfIssued(spki, 'status');
      await tokenKeys.storeCertificate('hsm', 'status', der);
      await tokenKeys.close();
      const asked: string[] = [];
      const fresh = createPkcs11Service({
        tokens: [token],
        ui: { askPin: async () => (asked.push('pin'), null), askPassphrase: async () => null },
        clock: new FakeClock(),
      });
      try {
        const pem = await fresh.publicCertificate('hsm', 'status');
        expect(pem && new X509Certificate(pem).raw.equals(der)).toBe(true);
        expect(await fresh.publicCertificate('hsm', 'nothing-here')).toBeUndefined();
        expect(asked).toEqual([]);
      } finally {
        await fresh.close();
      }
    });

    it('a key left without a certificate names --resume when the label is asked for again', async () => {
      const tokenKeys = start();
      await tokenKeys.generateKey('hsm', 'abandoned', 'ec-p256', { replace: false });
      const refusal = await tokenKeys.generateKey('hsm', 'abandoned', 'ec-p256', { replace: false }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refusal).toBeInstanceOf(BrokerError);
      expect((refusal as BrokerError).hint).toContain('kubecred enroll --resume <request>');
    });

    /** A certificate for the token's key: openssl needs a key to sign with, so a CA signs a request made elsewhere, forced to the token's key. */
    async function selfIssued(spki: Buffer, name: string): Promise<Buffer> {
      const at = (file: string) => join(dir, file);
      await writeFile(at(`${name}.pub.der`), spki);
      await exec('openssl', [
        'pkey',
        '-pubin',
        '-inform',
        'DER',
        '-in',
        at(`${name}.pub.der`),
        '-out',
        at(`${name}.pub.pem`),
      ]);
      await exec('openssl', [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        at('ca.key'),
        '-out',
        at('ca.crt'),
        '-subj',
        '/CN=ca',
        '-days',
        '1',
      ]);
      await exec('openssl', [
        'x509',
        '-new',
        '-force_pubkey',
        at(`${name}.pub.pem`),
        '-subj',
        `/CN=${name}`,
        '-CA',
        at('ca.crt'),
        '-CAkey',
        at('ca.key'),
        '-days',
        '1',
        '-outform',
        'DER',
        '-out',
        at(`${name}.der`),
      ]).catch(async () => {
        // OpenSSL 3.0 has no x509 -new: a request of any key, its public key replaced.
        await exec('openssl', [
          'req',
          '-new',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-keyout',
          at('throwaway.key'),
          '-subj',
          `/CN=${name}`,
          '-out',
          at(`${name}.csr`),
        ]);
        await exec('openssl', [
          'x509',
          '-req',
          '-in',
          at(`${name}.csr`),
          '-force_pubkey',
          at(`${name}.pub.pem`),
          '-CA',
          at('ca.crt'),
          '-CAkey',
          at('ca.key'),
          '-CAcreateserial',
          '-days',
          '1',
          '-outform',
          'DER',
          '-out',
          at(`${name}.der`),
        ]);
      });
      return readFile(at(`${name}.der`));
    }
  },
);
