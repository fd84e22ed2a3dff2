import type { TokenConfig } from '../../../shared/config/schema.js';
import {
  CKA_ALWAYS_SENSITIVE,
  CKA_EC_PARAMS,
  CKA_EXTRACTABLE,
  CKA_LOCAL,
  CKA_MODULUS,
  CKA_MODULUS_BITS,
  CKA_NEVER_EXTRACTABLE,
  CKA_SENSITIVE,
} from './constants.js';
import { curveOf, type CurveName } from './keyAlgorithms.js';
import { readAttribute, readBool, readUlong } from './objects.js';
import type { TokenKeyType } from './signaturePlan.js';
import { findKeyPair } from './tokenKeyPair.js';
import type { Attached } from './tokenSession.js';

/**
 * What the token says of a private key: the evidence (for a test, for doctor) that it was made
 * on the token and can never leave it. A flag is undefined when the token does not say.
 */
export interface TokenKeyFacts {
  readonly label: string;
  /** CKA_ID, hex. */
  readonly id: string;
  readonly keyType: TokenKeyType;
  /** RSA: the modulus length. */
  readonly bits?: number;
  /** EC: the named curve, when it is one Kubecred knows. */
  readonly curve?: CurveName;
  /** Its secret parts cannot be read, even logged in. */
  readonly sensitive: boolean | undefined;
  /** It may be wrapped and taken off the token. */
  readonly extractable: boolean | undefined;
  /** It was never extractable: no copy can have been made since it exists. */
  readonly neverExtractable: boolean | undefined;
  /** It was always sensitive. */
  readonly alwaysSensitive: boolean | undefined;
  /** It was generated on the token, not imported. */
  readonly local: boolean | undefined;
  /** A renewal's new key, waiting for its certificate. */
  readonly pending: boolean;
}

/** The facts of the key pair for `label` (a renewal's waiting key first); never a secret value. */
export function readKeyFacts(config: TokenConfig, attached: Attached, label: string): TokenKeyFacts {
  const { p11, session } = attached;
  const pair = findKeyPair(config, attached, label);
  const key = pair.privateKey;
  const flag = (type: number) => readBool(p11, session, key, type);
  const shape =
    pair.keyType === 'rsa'
      ? { bits: rsaBits(attached, pair.privateKey, pair.publicKey) }
      : { curve: curveOf(readAttribute(p11, session, key, CKA_EC_PARAMS)) };
  return {
    label,
    id: pair.id.toString('hex'),
    keyType: pair.keyType,
    ...definedOnly(shape),
    sensitive: flag(CKA_SENSITIVE),
    extractable: flag(CKA_EXTRACTABLE),
    neverExtractable: flag(CKA_NEVER_EXTRACTABLE),
    alwaysSensitive: flag(CKA_ALWAYS_SENSITIVE),
    local: flag(CKA_LOCAL),
    pending: pair.pending,
  };
}

// CKA_MODULUS_BITS belongs to public keys; a private key carries its modulus, which says the same.
function rsaBits({ p11, session }: Attached, privateKey: Buffer, publicKey: Buffer | undefined): number | undefined {
  const declared = publicKey && readUlong(p11, session, publicKey, CKA_MODULUS_BITS);
  if (declared) return declared;
  const modulus = readAttribute(p11, session, privateKey, CKA_MODULUS);
  if (!modulus) return undefined;
  let start = 0;
  while (start < modulus.length && modulus[start] === 0) start++;
  if (start === modulus.length) return undefined;
  return (modulus.length - start - 1) * 8 + (32 - Math.clz32(modulus[start]!));
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
