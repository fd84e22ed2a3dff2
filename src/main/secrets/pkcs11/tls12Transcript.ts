/**
 * TLS 1.2 handshake message types (RFC 5246, 7.4) in the order a client that is asked for a
 * certificate has seen them when it signs its CertificateVerify: everything from its
 * ClientHello to its ClientKeyExchange (7.4.8: the signature covers all of them).
 */
const CLIENT_HELLO = 1;
const SERVER_HELLO = 2;
const CERTIFICATE = 11;
const SERVER_KEY_EXCHANGE = 12;
const CERTIFICATE_REQUEST = 13;
const SERVER_HELLO_DONE = 14;
const CLIENT_KEY_EXCHANGE = 16;
const TLS12 = 0x0303;

/**
 * Whether `message` is the transcript a TLS 1.2 client signs to prove its key: whole handshake
 * messages, end to end, in the order of a full handshake with client authentication, the
 * server having chosen TLS 1.2. Unlike TLS 1.3's, this signature has no context string, so the
 * structure is what tells a handshake from other data (a JWT, a git commit) that a program on
 * the control channel might want signed with the token's key.
 */
export function isTls12ClientTranscript(message: Buffer): boolean {
  const types: number[] = [];
  let serverVersion = -1;
  for (let offset = 0; offset < message.length;) {
    if (offset + 4 > message.length) return false;
    const type = message[offset]!;
    const length = message.readUIntBE(offset + 1, 3);
    const body = offset + 4;
    if (body + length > message.length) return false;
    if (type === SERVER_HELLO && length >= 2) serverVersion = message.readUInt16BE(body);
    types.push(type);
    offset = body + length;
  }
  const expected = [
    CLIENT_HELLO,
    SERVER_HELLO,
    CERTIFICATE,
    ...(types[3] === SERVER_KEY_EXCHANGE ? [SERVER_KEY_EXCHANGE] : []),
    CERTIFICATE_REQUEST,
    SERVER_HELLO_DONE,
    CERTIFICATE,
    CLIENT_KEY_EXCHANGE,
  ];
  return serverVersion === TLS12 && types.length === expected.length && types.every((type, i) => type === expected[i]);
}

/**
 * The certificates the server sent in a TLS 1.2 transcript (its first Certificate message:
 * the server's, in the clear in 1.2), leaf first; empty when there is none to read.
 */
export function tls12ServerCertificates(message: Buffer): Buffer[] {
  for (let offset = 0; offset + 4 <= message.length;) {
    const type = message[offset]!;
    const length = message.readUIntBE(offset + 1, 3);
    const body = offset + 4;
    if (body + length > message.length) return [];
    if (type === CERTIFICATE) return certificateList(message.subarray(body, body + length));
    offset = body + length;
  }
  return [];
}

function certificateList(body: Buffer): Buffer[] {
  if (body.length < 3) return [];
  const end = Math.min(body.length, 3 + body.readUIntBE(0, 3));
  const certificates: Buffer[] = [];
  for (let offset = 3; offset + 3 <= end;) {
    const length = body.readUIntBE(offset, 3);
    if (offset + 3 + length > end) return [];
    certificates.push(body.subarray(offset + 3, offset + 3 + length));
    offset += 3 + length;
  }
  return certificates;
}
