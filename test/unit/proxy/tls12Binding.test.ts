import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tls12ServerRefusal } from '../../../src/main/proxy/handshakeBinding.js';
import { onPath } from '../../support/onPath.js';
import { createTestPki, type TestPki } from '../../support/pki.js';

const handshake = (type: number, body: Buffer) =>
  Buffer.concat([Buffer.from([type, body.length >> 16, (body.length >> 8) & 0xff, body.length & 0xff]), body]);
const u24 = (n: number) => Buffer.from([n >> 16, (n >> 8) & 0xff, n & 0xff]);

/** A TLS 1.2 client transcript whose server Certificate message holds `chain` (PEM, leaf first). */
function transcriptWith(...chain: string[]): Buffer {
  const entries = Buffer.concat(
    chain.map((pem) => new X509Certificate(pem).raw).map((der) => Buffer.concat([u24(der.length), der])),
  );
  const certificate = Buffer.concat([u24(entries.length), entries]);
  return Buffer.concat([
    handshake(1, Buffer.alloc(40, 1)),
    handshake(2, Buffer.concat([Buffer.from([3, 3]), Buffer.alloc(38, 2)])),
    handshake(11, certificate),
    handshake(13, Buffer.alloc(8, 13)),
    handshake(14, Buffer.alloc(0)),
    handshake(11, Buffer.from([0, 0, 0])),
    handshake(16, Buffer.alloc(66, 16)),
  ]);
}

// Security review 3, C3: the broker signed TLS 1.2 transcripts of handshakes with any server
// that trusts the token's certificate. Now only one whose server is the profile's cluster.
// The test PKI is made with openssl (absent under Wine; Git for Windows has it).
describe.runIf(onPath('openssl'))("a TLS 1.2 handshake is signed only when it is with the profile's cluster", () => {
  let dir: string;
  let cluster: TestPki;
  let other: TestPki;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'kc-tls12-'));
    cluster = await createTestPki(path.join(dir, 'cluster'));
    other = await createTestPki(path.join(dir, 'other'));
  }, 60_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const profile = () => ({ server: 'https://127.0.0.1:6443', caPem: cluster.caPem });

  it("admits the cluster's own certificate, by IP or by the configured server name", () => {
    expect(tls12ServerRefusal(transcriptWith(cluster.serverCertPem), profile())).toBeUndefined();
    expect(
      tls12ServerRefusal(transcriptWith(cluster.serverCertPem), { ...profile(), tlsServerName: 'localhost' }),
    ).toBeUndefined();
  });

  it("refuses another server's certificate, even one that names the same address", () => {
    expect(tls12ServerRefusal(transcriptWith(other.serverCertPem), profile())).toMatch(/does not chain/);
    // The other server sending the cluster's CA along does not make its certificate the cluster's.
    expect(tls12ServerRefusal(transcriptWith(other.serverCertPem, cluster.caPem), profile())).toMatch(/does not chain/);
  });

  it('refuses a certificate of the right CA for another name, and a transcript without one', () => {
    expect(
      tls12ServerRefusal(transcriptWith(cluster.serverCertPem), { ...profile(), server: 'https://10.0.0.9:6443' }),
    ).toMatch(/does not name 10\.0\.0\.9/);
    expect(tls12ServerRefusal(transcriptWith(cluster.clientCertPem), profile())).toBeDefined();
    expect(tls12ServerRefusal(Buffer.alloc(0), profile())).toMatch(/no server certificate/);
  });
});
