import { createECDH, createPrivateKey, type JsonWebKey } from 'node:crypto';

/** Named curves by the DER of their OID, as CKA_EC_PARAMS carries them. */
const CURVES: Record<string, { jwk: string; openssl: string; bytes: number }> = {
  '06082a8648ce3d030107': { jwk: 'P-256', openssl: 'prime256v1', bytes: 32 },
  '06052b81040022': { jwk: 'P-384', openssl: 'secp384r1', bytes: 48 },
  '06052b81040023': { jwk: 'P-521', openssl: 'secp521r1', bytes: 66 },
  '06052b8104000a': { jwk: 'secp256k1', openssl: 'secp256k1', bytes: 32 },
};

export class UnsupportedKeyError extends Error {}

/**
 * An EC private key from CKA_EC_PARAMS + CKA_VALUE as PKCS#8 PEM. A token stores only the
 * scalar; the public point JWK needs is derived from it.
 */
export function ecPrivateKeyPem(ecParams: Buffer, value: Buffer): string {
  const curve = CURVES[ecParams.toString('hex')];
  if (!curve)
    throw new UnsupportedKeyError(
      `the EC curve ${ecParams.toString('hex')} is not one Kubecred can export (P-256, P-384, P-521, secp256k1)`,
    );
  const d = leftPad(value, curve.bytes);
  try {
    const ecdh = createECDH(curve.openssl);
    ecdh.setPrivateKey(d);
    const point = ecdh.getPublicKey(); // 04 || x || y
    const jwk: JsonWebKey = {
      kty: 'EC',
      crv: curve.jwk,
      d: d.toString('base64url'),
      x: point.subarray(1, 1 + curve.bytes).toString('base64url'),
      y: point.subarray(1 + curve.bytes).toString('base64url'),
    };
    return pkcs8(jwk);
  } finally {
    d.fill(0);
  }
}

export interface RsaParts {
  modulus: Buffer;
  publicExponent: Buffer;
  privateExponent: Buffer;
  prime1: Buffer;
  prime2: Buffer;
  exponent1: Buffer;
  exponent2: Buffer;
  coefficient: Buffer;
}

/** An RSA private key from its PKCS#11 attributes (CRT form) as PKCS#8 PEM. */
export function rsaPrivateKeyPem(parts: RsaParts): string {
  const b64 = (value: Buffer) => stripZeros(value).toString('base64url');
  return pkcs8({
    kty: 'RSA',
    n: b64(parts.modulus),
    e: b64(parts.publicExponent),
    d: b64(parts.privateExponent),
    p: b64(parts.prime1),
    q: b64(parts.prime2),
    dp: b64(parts.exponent1),
    dq: b64(parts.exponent2),
    qi: b64(parts.coefficient),
  });
}

function pkcs8(jwk: JsonWebKey): string {
  return createPrivateKey({ key: jwk, format: 'jwk' }).export({ type: 'pkcs8', format: 'pem' }).toString();
}

// Tokens may drop leading zero bytes of the scalar; JWK wants the full field length.
function leftPad(value: Buffer, bytes: number): Buffer {
  if (value.length >= bytes) return Buffer.from(value.subarray(value.length - bytes));
  return Buffer.concat([Buffer.alloc(bytes - value.length), value]);
}

// JWK integers are minimal big-endian octets; some tokens pad them.
function stripZeros(value: Buffer): Buffer {
  let start = 0;
  while (start < value.length - 1 && value[start] === 0) start++;
  return value.subarray(start);
}
