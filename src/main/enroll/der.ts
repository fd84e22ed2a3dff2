// Just enough of a DER writer (ITU-T X.690) for a PKCS#10 certificate request: each function
// returns one whole element, tag, length and content, so a structure is written as nested calls.

const TAG = {
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  NULL: 0x05,
  OBJECT_IDENTIFIER: 0x06,
  UTF8_STRING: 0x0c,
  PRINTABLE_STRING: 0x13,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const;

function element(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), length(content.length), content]);
}

function length(bytes: number): Buffer {
  if (bytes < 0x80) return Buffer.from([bytes]);
  const octets: number[] = [];
  for (let rest = bytes; rest > 0; rest = Math.floor(rest / 256)) octets.unshift(rest % 256);
  return Buffer.from([0x80 | octets.length, ...octets]);
}

export function sequence(...items: readonly Buffer[]): Buffer {
  return element(TAG.SEQUENCE, Buffer.concat(items));
}

/** A SET OF: DER orders its members by their encodings (X.690, 11.6). */
export function setOf(...items: readonly Buffer[]): Buffer {
  return element(TAG.SET, Buffer.concat([...items].sort(Buffer.compare)));
}

/** A non-negative INTEGER, from a number or from unsigned big-endian bytes. */
export function integer(value: number | Buffer): Buffer {
  let bytes: Buffer;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`DER integer ${value}`);
    const octets: number[] = [];
    for (let rest = value; rest > 0; rest = Math.floor(rest / 256)) octets.unshift(rest % 256);
    bytes = Buffer.from(octets.length > 0 ? octets : [0]);
  } else {
    let start = 0;
    while (start < value.length - 1 && value[start] === 0) start++;
    bytes = value.length > 0 ? value.subarray(start) : Buffer.from([0]);
  }
  // A set top bit would read as a negative number.
  if (bytes[0]! & 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  return element(TAG.INTEGER, bytes);
}

export function nullValue(): Buffer {
  return element(TAG.NULL, Buffer.alloc(0));
}

/** An OBJECT IDENTIFIER from its dotted form, "1.2.840.10045.4.3.2". */
export function objectIdentifier(dotted: string): Buffer {
  const arcs = dotted.split('.').map((arc) => {
    if (!/^\d+$/.test(arc)) throw new RangeError(`OID ${dotted}`);
    return Number(arc);
  });
  const [first, second, ...rest] = arcs;
  if (first === undefined || second === undefined || first > 2 || (first < 2 && second > 39)) {
    throw new RangeError(`OID ${dotted}`);
  }
  const octets: number[] = [];
  for (const arc of [first * 40 + second, ...rest]) {
    // Base 128, most significant group first, the high bit set on all groups but the last.
    const groups = [arc % 128];
    for (let high = Math.floor(arc / 128); high > 0; high = Math.floor(high / 128)) groups.unshift((high % 128) | 0x80);
    octets.push(...groups);
  }
  return element(TAG.OBJECT_IDENTIFIER, Buffer.from(octets));
}

export function utf8String(text: string): Buffer {
  return element(TAG.UTF8_STRING, Buffer.from(text, 'utf8'));
}

const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?]*$/;

/** Only for text of PrintableString's alphabet (X.680, 41.4); anything else is a UTF8String. */
export function printableString(text: string): Buffer {
  if (!PRINTABLE.test(text)) throw new RangeError('not a PrintableString');
  return element(TAG.PRINTABLE_STRING, Buffer.from(text, 'latin1'));
}

/** A BIT STRING of whole bytes (no unused bits): keys and signatures. */
export function bitString(bytes: Buffer): Buffer {
  return element(TAG.BIT_STRING, Buffer.concat([Buffer.from([0]), bytes]));
}

/** A context-specific, constructed tag [n] around `content` (IMPLICIT: the tag replaces the inner one's). */
export function contextConstructed(tagNumber: number, content: Buffer): Buffer {
  if (tagNumber < 0 || tagNumber > 30) throw new RangeError(`context tag [${tagNumber}]`);
  return element(0xa0 | tagNumber, content);
}
