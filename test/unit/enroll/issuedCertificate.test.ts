import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/main/core/brokerError.js';
import { checkIssuedCertificate, type AskedFor } from '../../../src/main/enroll/issuedCertificate.js';
import { createTestPki, type TestPki } from '../../support/pki.js';
import { issueCertificate } from '../../support/issueCertificate.js';
import { onPath } from '../../support/onPath.js';

// What a signer other than kube-controller-manager may issue for a request, and whether enroll
// takes it: certificates made by openssl from the test CA, for the key asked for or another.
describe.runIf(onPath('openssl'))('the issued certificate is checked before the profile is ready', () => {
  let dir: string;
  let pki: TestPki;
  let key: KeyObject;
  let asked: AskedFor;
  let serial = 0;
  const issue = (subject: string, extendedKeyUsage?: string, forKey = key) =>
    issueCertificate(pki, forKey, {
      name: `issued-${++serial}`,
      subject,
      ...(extendedKeyUsage ? { extendedKeyUsage } : {}),
    });
  const refusal = (pem: string, changes: Partial<AskedFor> = {}): BrokerError => {
    try {
      checkIssuedCertificate(pem, { ...asked, ...changes });
    } catch (error) {
      expect(error).toBeInstanceOf(BrokerError);
      return error as BrokerError;
    }
    throw new Error('expected the certificate to be refused');
  };

  beforeAll(async () => {
    dir = await mkdtemp(`${tmpdir()}/issued-`);
    pki = await createTestPki(dir);
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    key = pair.privateKey;
    asked = {
      csrName: 'kubecred-prod-1',
      token: 'hsm',
      spki: pair.publicKey.export({ type: 'spki', format: 'der' }),
      user: 'jane',
      groups: ['devs', 'ops'],
      now: Date.now(),
    };
  }, 60_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('takes a client certificate for the key and subject asked for, whatever the order of its groups', async () => {
    const pem = await issue('/O=ops/O=devs/CN=jane', 'clientAuth');
    expect(checkIssuedCertificate(pem, asked).subject).toContain('CN=jane');
    // Go's x509 takes a certificate without the extension for any usage, so the API server does too.
    expect(() => checkIssuedCertificate(pem, asked)).not.toThrow();
    const noUsage = await issue('/O=devs/O=ops/CN=jane');
    expect(() => checkIssuedCertificate(noUsage, asked)).not.toThrow();
    const both = await issue('/O=devs/O=ops/CN=jane', 'serverAuth,clientAuth');
    expect(() => checkIssuedCertificate(both, asked)).not.toThrow();
  });

  it('refuses a serverAuth-only certificate, saying the cluster would not take it and what to ask', async () => {
    const error = refusal(await issue('/O=devs/O=ops/CN=jane', 'serverAuth'));
    expect(error.message).toBe(
      'the certificate issued for kubecred-prod-1 cannot log in to the cluster: its extended key usage is serverAuth (a TLS server), not clientAuth',
    );
    expect(error.hint).toContain('CN=kubecred-test-ca');
    expect(error.hint).toContain('sign client certificates');
  });

  it('refuses another user, other groups, or a second CN', async () => {
    const otherUser = refusal(await issue('/O=devs/O=ops/CN=break-glass', 'clientAuth'));
    expect(otherUser.message).toBe(
      'the certificate issued for kubecred-prod-1 is for O=devs, O=ops, CN=break-glass, not for user jane with groups devs, ops as asked',
    );
    expect(otherUser.hint).toContain('changed the subject');
    expect(refusal(await issue('/O=devs/O=system:masters/CN=jane', 'clientAuth')).message).toContain(
      'not for user jane',
    );
    expect(refusal(await issue('/O=devs/CN=jane', 'clientAuth')).message).toContain('not for user jane');
    expect(refusal(await issue('/O=devs/O=ops/CN=jane/CN=root', 'clientAuth')).message).toContain('not for user jane');
  });

  it('reads a UTF-8 subject as the API server does', async () => {
    const pem = await issue('/O=équipe/CN=zoë', 'clientAuth');
    expect(() => checkIssuedCertificate(pem, { ...asked, user: 'zoë', groups: ['équipe'] })).not.toThrow();
  });

  it('refuses a certificate for another key, and one that has ended', async () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const foreign = refusal(await issue('/O=devs/O=ops/CN=jane', 'clientAuth', other));
    expect(foreign.message).toBe('the certificate issued for kubecred-prod-1 is not for the key on token hsm');
    const pem = await issue('/O=devs/O=ops/CN=jane', 'clientAuth');
    const ended = refusal(pem, { now: Date.now() + 3 * 86_400_000 });
    expect(ended.message).toMatch(/^the certificate issued for kubecred-prod-1 ended already/);
  });
});
