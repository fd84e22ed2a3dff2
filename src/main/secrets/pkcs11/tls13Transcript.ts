import { createDecipheriv, createHash, createHmac, type CipherGCMTypes } from 'node:crypto';
import type { HashName } from './signaturePlan.js';

/**
 * What a TLS 1.3 client hands the broker with a CertificateVerify to sign: the bytes each way
 * until it signs, the server's handshake traffic secret (it opens the handshake, not the requests
 * that follow), and the client's own Certificate message, still unsent when it signs.
 */
export interface Tls13Evidence {
  readonly sent: Buffer;
  readonly received: Buffer;
  readonly serverSecret: Buffer;
  readonly clientCertificate: Buffer;
}

/** The handshake those bytes hold, read and decrypted by the broker itself. */
export interface Tls13Transcript {
  /** The server's certificates, leaf first. */
  readonly serverCertificates: Buffer[];
  /** The server's CertificateVerify: the scheme (RFC 8446, 4.2.3), its signature, and what it signs. */
  readonly serverVerify: { readonly scheme: number; readonly signature: Buffer; readonly content: Buffer };
  /** The transcript hash a client CertificateVerify signs after these messages. */
  readonly clientVerifyHash: Buffer;
}

/** Why evidence does not hold a TLS 1.3 handshake: thrown, with words for the refusal. */
export class TranscriptError extends Error {}

const HANDSHAKE = 22;
const CHANGE_CIPHER_SPEC = 20;
const ALERT = 21;
const APPLICATION_DATA = 23;
const MESSAGE_HASH = 254;
const TLS13 = 0x0304;
const MAX_RECORD = (1 << 14) + 256;
// A server's messages to its Finished take a handful of records, a long chain a few more; a
// bound keeps a made-up handshake of many tiny records from costing the broker quadratic time.
const MAX_HANDSHAKE_RECORDS = 64;
// RFC 8446, 4.1.3: a ServerHello with this random is a HelloRetryRequest.
const RETRY_RANDOM = Buffer.from('cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c', 'hex');
// RFC 8446, 4.4.1: after the server's Finished, before the client's Certificate: the messages the
// server sends under its handshake keys, in their order, when it asks for a client certificate.
const ENCRYPTED_FROM_SERVER = [8, 13, 11, 15, 20] as const;

interface Suite {
  readonly hash: 'sha256' | 'sha384';
  readonly cipher: 'aes-128-gcm' | 'aes-256-gcm' | 'chacha20-poly1305';
  readonly keyLength: number;
}
const SUITES: Readonly<Record<number, Suite>> = {
  0x1301: { hash: 'sha256', cipher: 'aes-128-gcm', keyLength: 16 },
  0x1302: { hash: 'sha384', cipher: 'aes-256-gcm', keyLength: 32 },
  0x1303: { hash: 'sha256', cipher: 'chacha20-poly1305', keyLength: 32 },
};

interface TlsRecord {
  readonly type: number;
  readonly header: Buffer;
  readonly payload: Buffer;
}

/**
 * Reads the handshake in `evidence` as RFC 8446 lays it out for a client asked for a
 * certificate (ClientHello, a HelloRetryRequest and second ClientHello if any, ServerHello,
 * then EncryptedExtensions, CertificateRequest, Certificate, CertificateVerify and Finished
 * under the server's handshake keys) and hashes it as the client's CertificateVerify does.
 */
export function readTls13Transcript(evidence: Tls13Evidence): Tls13Transcript {
  const client = messages(
    Buffer.concat(
      records(evidence.sent, 'sent')
        .filter((r) => r.type === HANDSHAKE)
        .map((r) => r.payload),
    ),
  );
  const received = records(evidence.received, 'received');
  const firstEncrypted = received.findIndex((r) => r.type === APPLICATION_DATA);
  if (firstEncrypted < 0) throw new TranscriptError('the server sent nothing under its handshake keys');
  const plain = received.slice(0, firstEncrypted);
  if (plain.some((r) => r.type === ALERT)) throw new TranscriptError('the server sent an alert');
  const server = messages(Buffer.concat(plain.filter((r) => r.type === HANDSHAKE).map((r) => r.payload)));
  const retried = server.length === 2 && isRetry(server[0]!);
  if (server.length !== (retried ? 2 : 1) || client.length !== (retried ? 2 : 1) || client.some((m) => m[0] !== 1))
    throw new TranscriptError('the handshake does not start with ClientHello and ServerHello');
  const serverHello = server.at(-1)!;
  const cipherSuite = tls13Suite(serverHello);
  const suite = SUITES[cipherSuite];
  if (!suite) throw new TranscriptError('the server chose a cipher suite TLS 1.3 does not have');

  const encrypted = openHandshake(evidence.received, evidence.serverSecret, cipherSuite);
  if (encrypted.length !== ENCRYPTED_FROM_SERVER.length || encrypted.some((m, i) => m[0] !== ENCRYPTED_FROM_SERVER[i]))
    throw new TranscriptError('the server did not ask for a certificate as a TLS 1.3 server does');
  const [, , certificate, verify] = encrypted as [Buffer, Buffer, Buffer, Buffer, Buffer];
  if (messages(evidence.clientCertificate).length !== 1 || evidence.clientCertificate[0] !== 11)
    throw new TranscriptError("the client's Certificate message cannot be read");

  const hash = (parts: readonly Buffer[]) => createHash(suite.hash).update(Buffer.concat(parts)).digest();
  // RFC 8446, 4.4.1: after a retry, the first ClientHello counts as a message_hash of itself.
  const opening = retried
    ? [messageHash(hash([client[0]!])), server[0]!, client[1]!, serverHello]
    : [client[0]!, serverHello];
  const throughCertificate = [...opening, ...encrypted.slice(0, 3)];
  return {
    serverCertificates: certificateList(certificate),
    serverVerify: {
      ...certificateVerify(verify),
      content: Buffer.concat([
        Buffer.alloc(64, 0x20),
        Buffer.from('TLS 1.3, server CertificateVerify\0', 'latin1'),
        hash(throughCertificate),
      ]),
    },
    clientVerifyHash: hash([...opening, ...encrypted, evidence.clientCertificate]),
  };
}

function records(bytes: Buffer, side: string): TlsRecord[] {
  const out: TlsRecord[] = [];
  for (let offset = 0; offset + 5 <= bytes.length;) {
    const length = bytes.readUInt16BE(offset + 3);
    if (length > MAX_RECORD) throw new TranscriptError(`a record ${side} is longer than TLS allows`);
    if (offset + 5 + length > bytes.length) break; // a record still arriving: not part of what was signed
    out.push({
      type: bytes[offset]!,
      header: bytes.subarray(offset, offset + 5),
      payload: bytes.subarray(offset + 5, offset + 5 + length),
    });
    offset += 5 + length;
  }
  return out;
}

/** Whole handshake messages, header included; a torn one at the end is left out. */
function messages(stream: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let offset = 0; offset + 4 <= stream.length;) {
    const end = offset + 4 + stream.readUIntBE(offset + 1, 3);
    if (end > stream.length) break;
    out.push(stream.subarray(offset, end));
    offset = end;
  }
  return out;
}

function isRetry(serverHello: Buffer): boolean {
  return serverHello[0] === 2 && serverHello.length >= 38 && serverHello.subarray(6, 38).equals(RETRY_RANDOM);
}

/** The cipher suite of a ServerHello that chose TLS 1.3 (its supported_versions extension); -1 otherwise. */
function tls13Suite(serverHello: Buffer): number {
  if (serverHello[0] !== 2) return -1;
  const body = serverHello.subarray(4);
  let offset = 2 + 32;
  if (offset >= body.length) return -1;
  offset += 1 + body[offset]!;
  if (offset + 5 > body.length) return -1;
  const suite = body.readUInt16BE(offset);
  offset += 3; // the suite, then legacy_compression_method
  const end = Math.min(body.length, offset + 2 + body.readUInt16BE(offset));
  for (offset += 2; offset + 4 <= end;) {
    const type = body.readUInt16BE(offset);
    const length = body.readUInt16BE(offset + 2);
    if (type === 43 && length === 2 && offset + 6 <= end && body.readUInt16BE(offset + 4) === TLS13) return suite;
    offset += 4 + length;
  }
  return -1;
}

/**
 * The handshake messages one side sent under its handshake traffic `secret` (RFC 8446, 7.3),
 * through its Finished: `bytes` is everything that side sent, the records before its first
 * encrypted one (hellos, a compatibility ChangeCipherSpec) passed over.
 */
export function openHandshake(bytes: Buffer, secret: Buffer, cipherSuite: number): Buffer[] {
  const suite = SUITES[cipherSuite];
  if (!suite) throw new TranscriptError('the cipher suite is not a TLS 1.3 one');
  if (secret.length !== (suite.hash === 'sha384' ? 48 : 32))
    throw new TranscriptError('the handshake traffic secret does not fit the cipher suite');
  const key = expandLabel(suite.hash, secret, 'key', suite.keyLength);
  const iv = expandLabel(suite.hash, secret, 'iv', 12);
  const all = records(bytes, 'in the handshake');
  const encrypted = all.slice(
    Math.max(
      0,
      all.findIndex((r) => r.type === APPLICATION_DATA),
    ),
  );
  let stream = Buffer.alloc(0);
  let sequence = 0;
  for (const record of encrypted) {
    if (record.type === CHANGE_CIPHER_SPEC) continue;
    if (sequence === MAX_HANDSHAKE_RECORDS)
      throw new TranscriptError('the handshake takes more records than a server sends');
    if (record.type !== APPLICATION_DATA || record.payload.length < 17)
      throw new TranscriptError('a record TLS 1.3 does not send during the handshake');
    const inner = open(suite, key, iv, sequence++, record);
    let end = inner.length;
    while (end > 0 && inner[end - 1] === 0) end--;
    if (end === 0 || inner[end - 1] !== HANDSHAKE) throw new TranscriptError('an alert or data during the handshake');
    stream = Buffer.concat([stream, inner.subarray(0, end - 1)]);
    const read = messages(stream);
    // Records after the Finished are under other keys: they are not the handshake.
    if (read.some((m) => m[0] === 20)) return read;
  }
  throw new TranscriptError('the Finished message is not in the handshake');
}

function open(suite: Suite, key: Buffer, iv: Buffer, sequence: number, record: TlsRecord): Buffer {
  const nonce = Buffer.from(iv);
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(sequence));
  for (let i = 0; i < 8; i++) nonce[4 + i]! ^= counter[i]!;
  const ciphertext = record.payload.subarray(0, -16);
  try {
    // chacha20-poly1305 takes the same AAD, tag and tag length as the GCM ciphers.
    const decipher = createDecipheriv(suite.cipher as CipherGCMTypes, key, nonce, { authTagLength: 16 });
    decipher.setAAD(record.header);
    decipher.setAuthTag(record.payload.subarray(-16));
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  } catch {
    throw new TranscriptError('a record does not decrypt with the handshake traffic secret');
  }
}

/** HKDF-Expand-Label (RFC 8446, 7.1) for outputs no longer than one hash block, as keys and IVs are. */
function expandLabel(hash: HashName, secret: Buffer, label: string, length: number): Buffer {
  const full = Buffer.from(`tls13 ${label}`, 'latin1');
  const info = Buffer.concat([Buffer.from([length >> 8, length & 0xff, full.length]), full, Buffer.from([0])]);
  return createHmac(hash, secret)
    .update(Buffer.concat([info, Buffer.from([1])]))
    .digest()
    .subarray(0, length);
}

function messageHash(digest: Buffer): Buffer {
  return Buffer.concat([Buffer.from([MESSAGE_HASH, 0, 0, digest.length]), digest]);
}

/** A TLS 1.3 Certificate message's certificates (RFC 8446, 4.4.2), leaf first. */
function certificateList(message: Buffer): Buffer[] {
  const body = message.subarray(4);
  let offset = 1 + (body[0] ?? 0);
  if (offset + 3 > body.length) throw new TranscriptError("the server's Certificate message cannot be read");
  const end = offset + 3 + body.readUIntBE(offset, 3);
  if (end > body.length) throw new TranscriptError("the server's Certificate message cannot be read");
  const out: Buffer[] = [];
  for (offset += 3; offset + 3 <= end;) {
    const length = body.readUIntBE(offset, 3);
    const extensions = offset + 3 + length;
    if (extensions + 2 > end) throw new TranscriptError("the server's Certificate message cannot be read");
    out.push(body.subarray(offset + 3, extensions));
    offset = extensions + 2 + body.readUInt16BE(extensions);
  }
  return out;
}

function certificateVerify(message: Buffer): { scheme: number; signature: Buffer } {
  const body = message.subarray(4);
  if (body.length < 4 || body.length !== 4 + body.readUInt16BE(2))
    throw new TranscriptError("the server's CertificateVerify cannot be read");
  return { scheme: body.readUInt16BE(0), signature: body.subarray(4) };
}
