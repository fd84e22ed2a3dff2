// The few DER fields a token keeps beside a certificate (PKCS#11 wants them as separate
// attributes). node:crypto parses certificates but hands out no raw DER of their names or
// serial, so this reads the TLVs itself.

/** One DER element: its tag and where its whole encoding and its content lie in the buffer. */
interface Element {
  readonly tag: number;
  readonly start: number;
  readonly contentStart: number;
  readonly end: number;
}

export class MalformedDerError extends Error {}

const SEQUENCE = 0x30;
const INTEGER = 0x02;
const CONTEXT_0 = 0xa0;

function element(der: Buffer, at: number, limit: number): Element {
  if (at + 2 > limit) throw new MalformedDerError('truncated DER');
  const tag = der[at]!;
  // Single-byte tags only: certificates and requests use no others at the levels read here.
  if ((tag & 0x1f) === 0x1f) throw new MalformedDerError('multi-byte DER tags are not read here');
  const first = der[at + 1]!;
  let length = first;
  let contentStart = at + 2;
  if (first & 0x80) {
    const octets = first & 0x7f;
    // 0x80 would be BER's indefinite length; more than 4 octets, a length no certificate has.
    if (octets === 0 || octets > 4 || contentStart + octets > limit) throw new MalformedDerError('bad DER length');
    length = 0;
    for (let i = 0; i < octets; i++) length = length * 256 + der[contentStart + i]!;
    contentStart += octets;
  }
  const end = contentStart + length;
  if (end > limit) throw new MalformedDerError('DER element runs past its container');
  return { tag, start: at, contentStart, end };
}

/** The elements inside a constructed element, in order. */
function children(der: Buffer, parent: Element): Element[] {
  const found: Element[] = [];
  for (let at = parent.contentStart; at < parent.end;) {
    const child = element(der, at, parent.end);
    found.push(child);
    at = child.end;
  }
  return found;
}

function expectTag(item: Element | undefined, tag: number, what: string): Element {
  if (!item || item.tag !== tag) throw new MalformedDerError(`${what} is missing or malformed`);
  return item;
}

const bytesOf = (der: Buffer, item: Element) => Buffer.from(der.subarray(item.start, item.end));

/** What PKCS#11 asks to store beside a certificate: the DER of its subject, issuer and serial number. */
export interface CertificateFields {
  readonly subject: Buffer;
  readonly issuer: Buffer;
  /** The serial's whole DER INTEGER, as CKA_SERIAL_NUMBER holds it. */
  readonly serialNumber: Buffer;
}

export function certificateFields(der: Buffer): CertificateFields {
  const certificate = expectTag(element(der, 0, der.length), SEQUENCE, 'the certificate');
  const tbs = expectTag(children(der, certificate)[0], SEQUENCE, 'the TBSCertificate');
  const fields = children(der, tbs);
  // version is [0] EXPLICIT and DEFAULT v1: absent from v1 certificates.
  const rest = fields[0]?.tag === CONTEXT_0 ? fields.slice(1) : fields;
  const [serial, , issuer, , subject] = rest;
  return {
    serialNumber: bytesOf(der, expectTag(serial, INTEGER, 'the serial number')),
    issuer: bytesOf(der, expectTag(issuer, SEQUENCE, 'the issuer')),
    subject: bytesOf(der, expectTag(subject, SEQUENCE, 'the subject')),
  };
}
