import { createPublicKey, type JsonWebKey } from 'node:crypto';
import type { TokenConfig } from '../../../shared/config/schema.js';
import { BrokerError } from '../../core/brokerError.js';
import type { Handle } from './binding.js';
import {
  CKA_CLASS,
  CKA_EC_PARAMS,
  CKA_EC_POINT,
  CKA_ID,
  CKA_KEY_TYPE,
  CKA_LABEL,
  CKA_MODULUS,
  CKA_PUBLIC_EXPONENT,
  CKK_EC,
  CKK_RSA,
  CKO_CERTIFICATE,
  CKO_PRIVATE_KEY,
  CKO_PUBLIC_KEY,
} from './constants.js';
import { CURVES, curveOf } from './keyAlgorithms.js';
import { findObjects, readAttribute, readUlong } from './objects.js';
import type { TokenKeyType } from './signaturePlan.js';
import { tokenWanted } from './tokenErrors.js';
import type { Attached } from './tokenSession.js';

/**
 * A renewal's new key waits under this label until its certificate is stored: until then the
 * exec proxy keeps finding the old key and certificate by their label (one private key per
 * label), so a request that is never approved costs nothing.
 */
export function pendingLabel(label: string): string {
  return `kubecred-pending/${label}`;
}

/** A private key made for `label` and its public half (same CKA_ID). */
export interface TokenKeyPair {
  readonly privateKey: Handle;
  readonly publicKey: Handle | undefined;
  readonly id: Buffer;
  readonly keyType: TokenKeyType;
  /** Made by a renewal and waiting for its certificate. */
  readonly pending: boolean;
}

export function objectsLabelled(
  { p11, session }: Pick<Attached, 'p11' | 'session'>,
  objectClass: number,
  label: string,
): Handle[] {
  return findObjects(p11, session, [
    { type: CKA_CLASS, value: objectClass },
    { type: CKA_LABEL, value: label },
  ]);
}

/** Every key pair for `label`: the one awaiting its certificate first, then the labelled ones. */
export function keyPairsFor(config: TokenConfig, attached: Attached, label: string): TokenKeyPair[] {
  const pairs: TokenKeyPair[] = [];
  for (const [objectLabel, pending] of [
    [pendingLabel(label), true],
    [label, false],
  ] as const) {
    for (const privateKey of objectsLabelled(attached, CKO_PRIVATE_KEY, objectLabel)) {
      const id = readAttribute(attached.p11, attached.session, privateKey, CKA_ID) ?? Buffer.alloc(0);
      const [publicKey] = publicKeysOf(attached, objectLabel, id);
      pairs.push({ privateKey, publicKey, id, keyType: keyTypeOf(config, attached, privateKey, label), pending });
    }
  }
  return pairs;
}

/**
 * The key a certificate request for `label` is made with: a renewal's new key while it waits,
 * else the key labelled `label` (which may have no certificate yet).
 */
export function findKeyPair(config: TokenConfig, attached: Attached, label: string): TokenKeyPair {
  const [pair] = keyPairsFor(config, attached, label);
  if (!pair) {
    throw new BrokerError(
      'secret-missing',
      `${tokenWanted(config)} has no private key labelled "${label}"`,
      `make one with: kubecred enroll (or check the label with \`pkcs11-tool --module ${config.module} --login --list-objects --type privkey\`)`,
    );
  }
  return pair;
}

/** Whether anything (a key, its public half, a certificate, a renewal's key) is labelled `label`. */
export function labelInUse(attached: Attached, label: string): boolean {
  return [label, pendingLabel(label)].some((objectLabel) =>
    [CKO_PRIVATE_KEY, CKO_PUBLIC_KEY, CKO_CERTIFICATE].some(
      (objectClass) => objectsLabelled(attached, objectClass, objectLabel).length > 0,
    ),
  );
}

/**
 * The key pair's SubjectPublicKeyInfo (DER), as node:crypto writes it, so that two of them
 * compare byte for byte. Read from the public key object; an RSA private key also carries its
 * modulus and exponent, an EC one not its point.
 */
export function publicKeyInfo(config: TokenConfig, attached: Attached, pair: TokenKeyPair, label: string): Buffer {
  const { p11, session } = attached;
  const read = (object: Handle | undefined, type: number) =>
    object === undefined ? undefined : readAttribute(p11, session, object, type);
  const b64 = (value: Buffer) => stripZeros(value).toString('base64url');
  let jwk: JsonWebKey | undefined;
  if (pair.keyType === 'rsa') {
    const source = read(pair.publicKey, CKA_MODULUS) ? pair.publicKey : pair.privateKey;
    const n = read(source, CKA_MODULUS);
    const e = read(source, CKA_PUBLIC_EXPONENT);
    if (n && e) jwk = { kty: 'RSA', n: b64(n), e: b64(e) };
  } else {
    const params = read(pair.publicKey, CKA_EC_PARAMS) ?? read(pair.privateKey, CKA_EC_PARAMS);
    const curve = curveOf(params);
    const point = curve && ecPoint(read(pair.publicKey, CKA_EC_POINT), CURVES[curve].bytes);
    if (curve && point) {
      const half = CURVES[curve].bytes;
      jwk = {
        kty: 'EC',
        crv: curve,
        x: point.subarray(1, 1 + half).toString('base64url'),
        y: point.subarray(1 + half).toString('base64url'),
      };
    }
  }
  if (!jwk) {
    throw new BrokerError(
      'secret-missing',
      `${tokenWanted(config)} has no readable public key for "${label}" (an RSA key, or an EC key on P-256, P-384 or P-521, with its public key object beside it)`,
      'make the key pair again with: kubecred enroll',
    );
  }
  return createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'der' });
}

function publicKeysOf({ p11, session }: Attached, label: string, id: Buffer): Handle[] {
  const byId =
    id.length > 0
      ? findObjects(p11, session, [
          { type: CKA_CLASS, value: CKO_PUBLIC_KEY },
          { type: CKA_ID, value: id },
        ])
      : [];
  return byId.length > 0 ? byId : objectsLabelled({ p11, session }, CKO_PUBLIC_KEY, label);
}

/** RSA or EC: the two kinds of key the proxy and enroll sign with; anything else is refused by name. */
export function keyTypeOf(config: TokenConfig, { p11, session }: Attached, key: Handle, label: string): TokenKeyType {
  const type = readUlong(p11, session, key, CKA_KEY_TYPE);
  if (type === CKK_RSA) return 'rsa';
  if (type === CKK_EC) return 'ec';
  throw new BrokerError(
    'token-unavailable',
    `the key "${label}" on ${tokenWanted(config)} is neither RSA nor EC`,
    'use an RSA or EC (P-256, P-384) key: kubecred enroll --key-type makes one',
  );
}

/**
 * The uncompressed point 04 || x || y. PKCS#11 says CKA_EC_POINT is a DER OCTET STRING around
 * it; some modules give the bare point.
 */
function ecPoint(value: Buffer | undefined, coordinateBytes: number): Buffer | undefined {
  if (!value) return undefined;
  const size = 1 + 2 * coordinateBytes;
  if (value.length === size && value[0] === 0x04) return value;
  if (value[0] !== 0x04) return undefined;
  const headerLength = value[1]! < 0x80 ? 2 : 2 + (value[1]! & 0x7f);
  const point = value.subarray(headerLength);
  return point.length === size && point[0] === 0x04 ? point : undefined;
}

// JWK integers are minimal big-endian octets; tokens may pad them.
function stripZeros(value: Buffer): Buffer {
  let start = 0;
  while (start < value.length - 1 && value[start] === 0) start++;
  return value.subarray(start);
}
