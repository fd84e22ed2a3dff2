import type { TokenConfig } from '../../../shared/config/schema.js';
import { BrokerError } from '../../core/brokerError.js';
import type { Handle, Pkcs11 } from './binding.js';
import { ckrOf } from './ckr.js';
import {
  CKF_GENERATE_KEY_PAIR,
  CKF_SIGN,
  CKM_EC_KEY_PAIR_GEN,
  CKM_ECDSA,
  CKM_RSA_PKCS,
  CKM_RSA_PKCS_KEY_PAIR_GEN,
  CKR,
} from './constants.js';
import type { TokenKeyType } from './signaturePlan.js';
import { tokenWanted } from './tokenErrors.js';

/** The key pairs `kubecred enroll --key-type` can make on a token. */
export const KEY_ALGORITHM_NAMES = ['ec-p256', 'ec-p384', 'rsa-2048'] as const;
export type KeyAlgorithm = (typeof KEY_ALGORITHM_NAMES)[number];
export type CurveName = 'P-256' | 'P-384' | 'P-521';
/** The hashes a certificate request is signed with. */
export type RequestHash = 'sha256' | 'sha384';

export interface CurveFacts {
  /** The DER of the curve's OID: CKA_EC_PARAMS as a token takes and gives it. */
  readonly params: Buffer;
  /** Bytes of one coordinate (and of r and s in a signature). */
  readonly bytes: number;
  readonly bits: number;
}

export const CURVES: Readonly<Record<CurveName, CurveFacts>> = {
  'P-256': { params: Buffer.from('06082a8648ce3d030107', 'hex'), bytes: 32, bits: 256 },
  'P-384': { params: Buffer.from('06052b81040022', 'hex'), bytes: 48, bits: 384 },
  'P-521': { params: Buffer.from('06052b81040023', 'hex'), bytes: 66, bits: 521 },
};

export interface KeyAlgorithmFacts {
  readonly keyType: TokenKeyType;
  readonly generate: number;
  readonly sign: number;
  readonly bits: number;
  readonly curve?: CurveName;
  /** The hash that matches the key's strength, for its certificate request. */
  readonly hash: RequestHash;
}

export const KEY_ALGORITHMS: Readonly<Record<KeyAlgorithm, KeyAlgorithmFacts>> = {
  'ec-p256': {
    keyType: 'ec',
    generate: CKM_EC_KEY_PAIR_GEN,
    sign: CKM_ECDSA,
    bits: 256,
    curve: 'P-256',
    hash: 'sha256',
  },
  'ec-p384': {
    keyType: 'ec',
    generate: CKM_EC_KEY_PAIR_GEN,
    sign: CKM_ECDSA,
    bits: 384,
    curve: 'P-384',
    hash: 'sha384',
  },
  'rsa-2048': {
    keyType: 'rsa',
    generate: CKM_RSA_PKCS_KEY_PAIR_GEN,
    sign: CKM_RSA_PKCS,
    bits: 2048,
    hash: 'sha256',
  },
};

const MECHANISM_NAMES: Readonly<Record<number, string>> = {
  [CKM_EC_KEY_PAIR_GEN]: 'CKM_EC_KEY_PAIR_GEN',
  [CKM_ECDSA]: 'CKM_ECDSA',
  [CKM_RSA_PKCS_KEY_PAIR_GEN]: 'CKM_RSA_PKCS_KEY_PAIR_GEN',
  [CKM_RSA_PKCS]: 'CKM_RSA_PKCS',
};

/** A mechanism as C_GetMechanismInfo describes it. */
export interface OfferedMechanism {
  readonly minKeySize: number;
  readonly maxKeySize: number;
  readonly flags: number;
}

/** The mechanisms a token offers, of those KEY_ALGORITHMS use. */
export type MechanismTable = ReadonlyMap<number, OfferedMechanism>;

export function curveOf(ecParams: Buffer | undefined): CurveName | undefined {
  if (!ecParams) return undefined;
  return (Object.keys(CURVES) as CurveName[]).find((name) => CURVES[name].params.equals(ecParams));
}

/** Reads only the mechanisms enrollment may use: some modules are slow to describe all of theirs. */
export function readMechanisms(p11: Pkcs11, slot: Handle): MechanismTable {
  const wanted = new Set(Object.values(KEY_ALGORITHMS).flatMap((facts) => [facts.generate, facts.sign]));
  const table = new Map<number, OfferedMechanism>();
  for (const mechanism of p11.C_GetMechanismList(slot)) {
    if (!wanted.has(mechanism)) continue;
    try {
      const { minKeySize, maxKeySize, flags } = p11.C_GetMechanismInfo(slot, mechanism);
      table.set(mechanism, { minKeySize, maxKeySize, flags });
    } catch (error) {
      // Listed but not described: as good as absent.
      if (ckrOf(error) !== CKR.CKR_MECHANISM_INVALID) throw error;
    }
  }
  return table;
}

/** What the token lacks to make and use `algorithm`'s keys, in words for a message; undefined when nothing. */
export function algorithmShortfall(algorithm: KeyAlgorithm, offered: MechanismTable): string | undefined {
  const facts = KEY_ALGORITHMS[algorithm];
  const needs: [number, number, string][] = [
    [facts.generate, CKF_GENERATE_KEY_PAIR, 'to generate key pairs'],
    [facts.sign, CKF_SIGN, 'to sign'],
  ];
  for (const [mechanism, flag, use] of needs) {
    const name = MECHANISM_NAMES[mechanism] ?? `mechanism 0x${mechanism.toString(16)}`;
    const info = offered.get(mechanism);
    if (!info) return `it offers no ${name}`;
    if ((info.flags & flag) === 0) return `its ${name} cannot be used ${use}`;
    if (!sizeFits(facts, info)) {
      return `its ${name} takes ${facts.keyType === 'ec' ? 'curves' : 'keys'} of ${info.minKeySize} to ${info.maxKeySize} bits, not ${facts.bits}`;
    }
  }
  return undefined;
}

/** Refuses, naming the token and what it lacks, an algorithm the token cannot make or sign with. */
export function requireAlgorithm(config: TokenConfig, algorithm: KeyAlgorithm, offered: MechanismTable): void {
  const shortfall = algorithmShortfall(algorithm, offered);
  if (shortfall === undefined) return;
  const others = KEY_ALGORITHM_NAMES.filter((other) => algorithmShortfall(other, offered) === undefined);
  throw new BrokerError(
    'bad-request',
    `${tokenWanted(config)} cannot make ${algorithm} keys: ${shortfall}`,
    others.length > 0
      ? `choose another algorithm with --key-type (this token can make ${others.join(', ')}), or use another token`
      : 'use another token: this one can make none of the key types Kubecred enrolls (ec-p256, ec-p384, rsa-2048)',
  );
}

function sizeFits(facts: KeyAlgorithmFacts, info: OfferedMechanism): boolean {
  // A module that gives no range sets both to 0: nothing to hold against it.
  if (info.maxKeySize === 0) return true;
  const within = (size: number) => size >= info.minKeySize && size <= info.maxKeySize;
  // PKCS#11 v2.40 counts EC key sizes in bits; some older modules count bytes.
  return within(facts.bits) || (facts.keyType === 'ec' && within(Math.ceil(facts.bits / 8)));
}
