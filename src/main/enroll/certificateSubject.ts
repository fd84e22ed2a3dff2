import { certificateFields } from '../secrets/pkcs11/x509Fields.js';

// The subject of an issued certificate as the API server reads it (Go's pkix.Name): the CN is
// the user, each O a group. node:crypto shows the subject only as escaped text, so the DER is
// read here: Name ::= SEQUENCE OF SET OF SEQUENCE { type OID, value DirectoryString }.

export interface CertificateSubject {
  readonly commonNames: readonly string[];
  readonly organizations: readonly string[];
}

const COMMON_NAME = '2.5.4.3';
const ORGANIZATION = '2.5.4.10';

/** The string types a Name may carry, and how each is decoded. */
const STRING_DECODERS: ReadonlyMap<number, (bytes: Buffer) => string> = new Map([
  [0x0c, (bytes: Buffer) => bytes.toString('utf8')],
  [0x13, (bytes: Buffer) => bytes.toString('latin1')],
  [0x14, (bytes: Buffer) => bytes.toString('latin1')],
  [0x16, (bytes: Buffer) => bytes.toString('latin1')],
  [0x1e, (bytes: Buffer) => Buffer.from(bytes).swap16().toString('utf16le')],
]);

interface Element {
  readonly tag: number;
  readonly content: Buffer;
}

/** The CNs and Os of a DER certificate's subject, in order; throws on DER it cannot read. */
export function certificateSubject(der: Buffer): CertificateSubject {
  const commonNames: string[] = [];
  const organizations: string[] = [];
  for (const set of elements(single(certificateFields(der).subject, 0x30).content)) {
    for (const attribute of elements(set.content)) {
      const [type, value] = elements(attribute.content);
      if (!type || type.tag !== 0x06 || !value) throw new RangeError('a subject attribute without type or value');
      const oid = objectIdentifier(type.content);
      if (oid !== COMMON_NAME && oid !== ORGANIZATION) continue;
      const decode = STRING_DECODERS.get(value.tag);
      if (!decode) throw new RangeError(`a subject attribute of string type ${value.tag}`);
      (oid === COMMON_NAME ? commonNames : organizations).push(decode(value.content));
    }
  }
  return { commonNames, organizations };
}

function single(der: Buffer, tag: number): Element {
  const [only, ...rest] = elements(der);
  if (!only || only.tag !== tag || rest.length > 0) throw new RangeError('not the DER element expected');
  return only;
}

/** The TLVs one after another in `der` (short and long definite lengths only, as DER has). */
function elements(der: Buffer): Element[] {
  const found: Element[] = [];
  for (let at = 0; at < der.length;) {
    if (at + 2 > der.length) throw new RangeError('truncated DER');
    const tag = der[at]!;
    let length = der[at + 1]!;
    let start = at + 2;
    if (length & 0x80) {
      const octets = length & 0x7f;
      if (octets === 0 || octets > 4 || start + octets > der.length) throw new RangeError('bad DER length');
      length = der.subarray(start, start + octets).reduce((sum, octet) => sum * 256 + octet, 0);
      start += octets;
    }
    if (start + length > der.length) throw new RangeError('DER element runs past its container');
    found.push({ tag, content: der.subarray(start, start + length) });
    at = start + length;
  }
  return found;
}

/** Dotted form of an OID's content: base-128 arcs, the first two folded into one (X.690, 8.19). */
function objectIdentifier(content: Buffer): string {
  const values: number[] = [];
  let value = 0;
  for (const octet of content) {
    value = value * 128 + (octet & 0x7f);
    if (octet & 0x80) continue;
    values.push(value);
    value = 0;
  }
  const [folded = 0, ...rest] = values;
  const top = Math.min(2, Math.floor(folded / 40));
  return [top, folded - 40 * top, ...rest].join('.');
}
