import { X509Certificate, constants, verify } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tls13Evidence, tls13ServerRefusal } from '../../../src/main/proxy/handshakeBinding.js';
import { readTls13Transcript, type Tls13Evidence } from '../../../src/main/secrets/pkcs11/tls13Transcript.js';
import { onPath } from '../../support/onPath.js';
import { createTestPki, type TestPki } from '../../support/pki.js';
import { recordTls13Handshake, type HandshakeOptions } from '../../support/tls13Handshake.js';

const PREFIX = Buffer.concat([Buffer.alloc(64, 0x20), Buffer.from('TLS 1.3, client CertificateVerify\0', 'latin1')]);
const signedFor = (evidence: Tls13Evidence) => Buffer.concat([PREFIX, readTls13Transcript(evidence).clientVerifyHash]);

/** Whether the client's own CertificateVerify signs `hash`: the broker's transcript is the real one. */
function clientSigned(clientCertPem: string, verifyMessage: Buffer, hash: Buffer): boolean {
  const scheme = verifyMessage.readUInt16BE(4);
  const signature = verifyMessage.subarray(8);
  const key = new X509Certificate(clientCertPem).publicKey;
  const content = Buffer.concat([PREFIX, hash]);
  if (scheme === 0x0403) return verify('sha256', content, { key, dsaEncoding: 'der' }, signature);
  if (scheme === 0x0804)
    return verify('sha256', content, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 }, signature);
  throw new Error(`client scheme ${scheme.toString(16)}`);
}

// Security review 3, C3: a program on the proxy's control channel had the broker sign TLS 1.3
// CertificateVerify messages for any server, since a transcript hash shows nothing of the
// server. The broker now reads the handshake itself and signs only one with the profile's cluster.
// The test PKI is made with openssl (absent under Wine; Git for Windows has it).
describe.runIf(onPath('openssl'))("a TLS 1.3 handshake is signed only when it is with the profile's cluster", () => {
  let dir: string;
  let cluster: TestPki;
  let other: TestPki;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'kc-tls13-'));
    cluster = await createTestPki(path.join(dir, 'cluster'));
    other = await createTestPki(path.join(dir, 'other'));
  }, 60_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const profile = () => ({ server: 'https://127.0.0.1:6443', caPem: cluster.caPem });
  // Both servers trust the CA of the token's certificate: the second is the VPN or portal a
  // PIV certificate also opens.
  const withServer = (pki: TestPki, more: Partial<HandshakeOptions> = {}): HandshakeOptions => ({
    server: { certPem: pki.serverCertPem, keyPem: pki.serverKeyPem },
    clientCa: cluster.caPem,
    client: { certPem: cluster.clientCertPem, keyPem: cluster.clientKeyPem },
    ...more,
  });

  it.each([
    ['TLS_AES_128_GCM_SHA256', undefined],
    ['TLS_AES_256_GCM_SHA384', undefined],
    ['TLS_CHACHA20_POLY1305_SHA256', undefined],
    ['TLS_AES_128_GCM_SHA256', 'P-384'],
  ])(
    "signs for the cluster's handshake (%s, server group %s): the broker's transcript hash is the one the client really signed",
    async (cipherSuite, serverGroup) => {
      const handshake = await recordTls13Handshake(
        withServer(cluster, { cipherSuite, ...(serverGroup ? { serverGroup } : {}) }),
      );
      expect(handshake.retried).toBe(serverGroup !== undefined);
      const transcript = readTls13Transcript(handshake.evidence);
      expect(clientSigned(cluster.clientCertPem, handshake.clientCertificateVerify, transcript.clientVerifyHash)).toBe(
        true,
      );
      expect(tls13ServerRefusal(handshake.evidence, signedFor(handshake.evidence), profile())).toBeUndefined();
      expect(
        tls13ServerRefusal(handshake.evidence, signedFor(handshake.evidence), {
          ...profile(),
          tlsServerName: 'localhost',
        }),
      ).toBeUndefined();
    },
  );

  it('refuses an honest handshake with another server that trusts the same CA', async () => {
    const handshake = await recordTls13Handshake(withServer(other));
    expect(tls13ServerRefusal(handshake.evidence, signedFor(handshake.evidence), profile())).toMatch(
      /does not chain to the profile's proxy.caFile/,
    );
    expect(
      tls13ServerRefusal(handshake.evidence, signedFor(handshake.evidence), { server: 'https://127.0.0.1:6443' }),
    ).toMatch(/does not chain to the system's roots/);
  });

  it("refuses the cluster's handshake as evidence for another server's hash, and a certificate of the right CA for another name", async () => {
    const genuine = await recordTls13Handshake(withServer(cluster));
    const elsewhere = await recordTls13Handshake(withServer(other));
    expect(tls13ServerRefusal(genuine.evidence, signedFor(elsewhere.evidence), profile())).toMatch(
      /not the transcript of this handshake/,
    );
    expect(
      tls13ServerRefusal(genuine.evidence, signedFor(genuine.evidence), {
        ...profile(),
        server: 'https://10.0.0.9:6443',
      }),
    ).toMatch(/does not name 10\.0\.0\.9/);
  });

  it('refuses evidence that is missing, tampered with or garbage, with words and without throwing', async () => {
    const { evidence } = await recordTls13Handshake(withServer(cluster));
    const signed = signedFor(evidence);
    expect(tls13ServerRefusal(undefined, signed, profile())).toMatch(/no readable handshake/);
    // What the control channel carries: base64 fields, bounded, all four of them.
    const wire = Object.fromEntries(Object.entries(evidence).map(([name, bytes]) => [name, bytes.toString('base64')]));
    expect(tls13ServerRefusal(tls13Evidence(wire), signed, profile())).toBeUndefined();
    for (const broken of [
      { ...wire, sent: 'A'.repeat(400_000) },
      { ...wire, received: '%%' },
      { ...wire, serverSecret: 7 },
      'x',
      null,
    ])
      expect(tls13Evidence(broken)).toBeUndefined();
    const flipped = Buffer.from(evidence.received);
    flipped[flipped.length - 40]! ^= 1;
    const cases: Array<[Partial<Tls13Evidence>, RegExp]> = [
      [{ serverSecret: Buffer.alloc(evidence.serverSecret.length, 7) }, /does not decrypt/],
      [{ serverSecret: Buffer.alloc(5) }, /secret does not fit/],
      [{ received: evidence.received.subarray(0, 200) }, /nothing under its handshake keys|Finished/],
      [{ sent: Buffer.alloc(0) }, /does not start with ClientHello/],
      [{ clientCertificate: Buffer.from([11, 0, 0, 9]) }, /Certificate message cannot be read/],
    ];
    for (const [change, reason] of cases)
      expect(tls13ServerRefusal({ ...evidence, ...change }, signed, profile())).toMatch(reason);
    // Every single-byte change to the server's handshake is caught by the AEAD or the checks
    // after it. Past its Finished nothing is read; a plaintext record's version is in no hash.
    const records: Array<{ start: number; type: number }> = [];
    for (let at = 0; at + 5 <= evidence.received.length; at += 5 + evidence.received.readUInt16BE(at + 3))
      records.push({ start: at, type: evidence.received[at]! });
    const ends = records.map((_, i) => records[i + 1]?.start ?? evidence.received.length);
    const handshakeEnd = ends.find((end) => {
      try {
        return readTls13Transcript({ ...evidence, received: evidence.received.subarray(0, end) }) !== undefined;
      } catch {
        return false;
      }
    })!;
    const unread = new Set(records.filter((r) => r.type !== 23).flatMap((r) => [r.start + 1, r.start + 2]));
    let flips = 0;
    for (let at = 0; at < handshakeEnd; at += 7) {
      if (unread.has(at)) continue;
      const received = Buffer.from(evidence.received);
      received[at]! ^= 0x40;
      expect(tls13ServerRefusal({ ...evidence, received }, signed, profile()), `byte ${at}`).toBeDefined();
      flips++;
    }
    expect(flips).toBeGreaterThan(50);
    for (let seed = 0; seed < 200; seed++) {
      const noise = Buffer.from(Array.from({ length: 64 + seed * 7 }, (_, i) => (i * 31 + seed * 17) & 0xff));
      expect(typeof tls13ServerRefusal({ ...evidence, received: noise }, signed, profile())).toBe('string');
    }
  });
});
