import net from 'node:net';
import tls from 'node:tls';
import { openHandshake, type Tls13Evidence } from '../../src/main/secrets/pkcs11/tls13Transcript.js';

const SUITE_IDS: Readonly<Record<string, number>> = {
  TLS_AES_128_GCM_SHA256: 0x1301,
  TLS_AES_256_GCM_SHA384: 0x1302,
  TLS_CHACHA20_POLY1305_SHA256: 0x1303,
};

export interface RecordedHandshake {
  /** What a client hands the broker when it signs: as kubecred-proxy would have sent it. */
  readonly evidence: Tls13Evidence;
  /** The client's real CertificateVerify message, read from its own encrypted records. */
  readonly clientCertificateVerify: Buffer;
  /** Whether the server answered the first ClientHello with a HelloRetryRequest. */
  readonly retried: boolean;
}

export interface HandshakeOptions {
  readonly server: { readonly certPem: string; readonly keyPem: string };
  /** The CA the server trusts for client certificates. */
  readonly clientCa: string;
  readonly client: { readonly certPem: string; readonly keyPem: string };
  /** e.g. TLS_AES_256_GCM_SHA384; the default: what both sides prefer. */
  readonly cipherSuite?: string;
  /** The only group the server takes: one the client offers no key share for forces a retry. */
  readonly serverGroup?: string;
}

/**
 * A real TLS 1.3 handshake with client authentication between node:tls peers, its bytes taken
 * from a relay between them and its secrets from the client's key log, as the exec proxy sees
 * its own. The client keeps its key: this shows what the broker would be asked to sign.
 */
export async function recordTls13Handshake(options: HandshakeOptions): Promise<RecordedHandshake> {
  const server = tls.createServer({
    cert: options.server.certPem,
    key: options.server.keyPem,
    ca: options.clientCa,
    requestCert: true,
    rejectUnauthorized: true,
    minVersion: 'TLSv1.3',
    ...(options.serverGroup ? { ecdhCurve: options.serverGroup } : {}),
  });
  server.on('secureConnection', (socket) => socket.end('hello'));
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const sent: Buffer[] = [];
  const received: Buffer[] = [];
  const relay = net.createServer((downstream) => {
    const upstream = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
    downstream.on('data', (chunk: Buffer) => (sent.push(chunk), upstream.write(chunk)));
    upstream.on('data', (chunk: Buffer) => (received.push(chunk), downstream.write(chunk)));
    downstream.on('close', () => upstream.destroy());
    upstream.on('close', () => downstream.destroy());
    downstream.on('error', () => undefined);
    upstream.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  try {
    const secrets = new Map<string, Buffer>();
    const client = tls.connect({
      host: '127.0.0.1',
      port: (relay.address() as net.AddressInfo).port,
      cert: options.client.certPem,
      key: options.client.keyPem,
      rejectUnauthorized: false,
      minVersion: 'TLSv1.3',
      ...(options.cipherSuite ? { ciphers: options.cipherSuite } : {}),
      ...(options.serverGroup ? { ecdhCurve: `X25519:${options.serverGroup}` } : {}),
    });
    client.on('keylog', (line: Buffer) => {
      const [label, , secret] = line.toString('latin1').trim().split(' ');
      if (label && secret) secrets.set(label, Buffer.from(secret, 'hex'));
    });
    const body = await new Promise<string>((resolve, reject) => {
      let text = '';
      client.on('data', (chunk: Buffer) => (text += chunk.toString()));
      client.on('end', () => resolve(text));
      client.on('error', reject);
    });
    if (body !== 'hello') throw new Error(`the server answered ${JSON.stringify(body)}`);
    const cipherSuite = SUITE_IDS[client.getCipher().standardName];
    if (!cipherSuite) throw new Error(`cipher suite ${client.getCipher().standardName}`);
    const clientBytes = Buffer.concat(sent);
    const [certificate, verify] = openHandshake(
      clientBytes,
      secrets.get('CLIENT_HANDSHAKE_TRAFFIC_SECRET')!,
      cipherSuite,
    );
    return {
      evidence: {
        sent: clientBytes,
        received: Buffer.concat(received),
        serverSecret: secrets.get('SERVER_HANDSHAKE_TRAFFIC_SECRET')!,
        clientCertificate: certificate!,
      },
      clientCertificateVerify: verify!,
      // A retry shows as two ClientHello records before anything is encrypted.
      retried: countHellos(clientBytes) === 2,
    };
  } finally {
    relay.close();
    server.close();
  }
}

function countHellos(bytes: Buffer): number {
  let hellos = 0;
  for (let offset = 0; offset + 5 < bytes.length; offset += 5 + bytes.readUInt16BE(offset + 3)) {
    if (bytes[offset] === 22 && bytes[offset + 5] === 1) hellos++;
  }
  return hellos;
}
