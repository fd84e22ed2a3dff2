import { randomBytes } from 'node:crypto';
import type * as Pkcs11Js from 'pkcs11js';
import type { TokenConfig } from '../../../shared/config/schema.js';
import { BrokerError } from '../../core/brokerError.js';
import {
  CKA_CLASS,
  CKA_EC_PARAMS,
  CKA_EXTRACTABLE,
  CKA_ID,
  CKA_KEY_TYPE,
  CKA_LABEL,
  CKA_MODULUS_BITS,
  CKA_PRIVATE,
  CKA_PUBLIC_EXPONENT,
  CKA_SENSITIVE,
  CKA_SIGN,
  CKA_TOKEN,
  CKA_VERIFY,
  CKK_EC,
  CKK_RSA,
  CKO_CERTIFICATE,
  CKO_PRIVATE_KEY,
  CKO_PUBLIC_KEY,
} from './constants.js';
import { CURVES, KEY_ALGORITHMS, readMechanisms, requireAlgorithm, type KeyAlgorithm } from './keyAlgorithms.js';
import { tokenWanted } from './tokenErrors.js';
import { findKeyPair, keyPairsFor, labelInUse, objectsLabelled, pendingLabel, publicKeyInfo } from './tokenKeyPair.js';
import type { Attached } from './tokenSession.js';

// PKCS#11 v2.40 attribute numbers (pkcs11t.h) only the private key's template names.
const CKA_DECRYPT = 0x105;
const CKA_UNWRAP = 0x107;
const CKA_DERIVE = 0x10c;

/** Runs a call that continues on a worker thread (ModuleHost.offThread); given only for a module that can lock. */
export type RunOffThread = <T>(call: () => Promise<T>) => Promise<T>;

export interface GenerateKeyOptions {
  /** Renewal with a new key: the key and certificate already labelled so are replaced once the new certificate is stored. */
  readonly replace: boolean;
}

/** What the first half of a generation leaves for the second: where the new pair is. */
export interface KeyGenerationStarted {
  readonly id: Buffer;
}

// The size of a SHA-1 key identifier, the CKA_ID most tools make; random, as the key does not exist yet.
const ID_BYTES = 20;
const RSA_PUBLIC_EXPONENT = Buffer.from([0x01, 0x00, 0x01]);

/**
 * Checks that the token can make and sign with `algorithm` and that `label` is free (or may be
 * replaced), then generates the key pair: non-extractable and sensitive, so the private key
 * never exists anywhere but on the token. With `offThread` the generation (seconds to a minute
 * on a smart card) runs on a worker thread and is the last call made, as TokenSession.run asks.
 */
export function startKeyGeneration(
  config: TokenConfig,
  attached: Attached,
  label: string,
  algorithm: KeyAlgorithm,
  options: GenerateKeyOptions,
  offThread?: RunOffThread,
): KeyGenerationStarted | Promise<KeyGenerationStarted> {
  const { p11, session, slot } = attached;
  checkLabel(label);
  const facts = KEY_ALGORITHMS[algorithm];
  requireAlgorithm(config, algorithm, readMechanisms(p11, slot));

  if (labelInUse(attached, label) && !options.replace) {
    throw new BrokerError(
      'bad-request',
      `${tokenWanted(config)} already holds a key or certificate labelled "${label}"`,
      hasCertificate(attached, label)
        ? 'choose another label, or renew that identity with a new key, which replaces it once the new certificate is stored'
        : 'it is a key without a certificate, left by an enrollment that never got one: wait for its request again with kubecred enroll --resume <request> (kubectl get csr lists them), or choose another label',
    );
  }
  // A renewal never finished gives way to this one: one key at most waits for a label.
  const pending = pendingLabel(label);
  for (const objectClass of [CKO_PRIVATE_KEY, CKO_PUBLIC_KEY, CKO_CERTIFICATE]) {
    for (const stale of objectsLabelled(attached, objectClass, pending)) p11.C_DestroyObject(session, stale);
  }
  const renewing = objectsLabelled(attached, CKO_PRIVATE_KEY, label).length > 0 || hasCertificate(attached, label);
  const objectLabel = renewing ? pending : label;

  const id = randomBytes(ID_BYTES);
  const common = [
    { type: CKA_TOKEN, value: true },
    { type: CKA_LABEL, value: objectLabel },
    { type: CKA_ID, value: id },
  ];
  const publicTemplate: Pkcs11Js.Template = [
    { type: CKA_CLASS, value: CKO_PUBLIC_KEY },
    { type: CKA_KEY_TYPE, value: facts.keyType === 'ec' ? CKK_EC : CKK_RSA },
    ...common,
    { type: CKA_PRIVATE, value: false },
    { type: CKA_VERIFY, value: true },
    ...(facts.curve
      ? [{ type: CKA_EC_PARAMS, value: CURVES[facts.curve].params }]
      : [
          { type: CKA_MODULUS_BITS, value: facts.bits },
          { type: CKA_PUBLIC_EXPONENT, value: RSA_PUBLIC_EXPONENT },
        ]),
  ];
  const privateTemplate: Pkcs11Js.Template = [
    { type: CKA_CLASS, value: CKO_PRIVATE_KEY },
    { type: CKA_KEY_TYPE, value: facts.keyType === 'ec' ? CKK_EC : CKK_RSA },
    ...common,
    { type: CKA_PRIVATE, value: true },
    { type: CKA_SENSITIVE, value: true },
    { type: CKA_EXTRACTABLE, value: false },
    { type: CKA_SIGN, value: true },
    // A client certificate's key signs and does nothing else: a token's default may let it
    // decrypt, unwrap or derive, so whoever holds the PIN could use it as a key of another kind.
    { type: CKA_DECRYPT, value: false },
    { type: CKA_UNWRAP, value: false },
    { type: CKA_DERIVE, value: false },
  ];
  const mechanism = { mechanism: facts.generate };
  const started: KeyGenerationStarted = { id };
  if (!offThread) {
    p11.C_GenerateKeyPair(session, mechanism, publicTemplate, privateTemplate);
    return started;
  }
  return offThread(() => p11.C_GenerateKeyPairAsync(session, mechanism, publicTemplate, privateTemplate)).then(
    () => started,
  );
}

/** The second half, in a later run: the new pair's public key (SubjectPublicKeyInfo DER), read back from the token. */
export function finishKeyGeneration(
  config: TokenConfig,
  attached: Attached,
  label: string,
  started: KeyGenerationStarted,
): Buffer {
  const pair = findKeyPair(config, attached, label);
  if (!pair.id.equals(started.id)) {
    throw new BrokerError(
      'token-unavailable',
      `${tokenWanted(config)} does not show the key pair just generated for "${label}"`,
      'another program changed the token meanwhile; run the command again',
    );
  }
  return publicKeyInfo(config, attached, pair, label);
}

/** The public key of the key pair for `label` (renewal with the same key), as SubjectPublicKeyInfo DER. */
export function readPublicKeyInfo(config: TokenConfig, attached: Attached, label: string): Buffer {
  return publicKeyInfo(config, attached, findKeyPair(config, attached, label), label);
}

/**
 * Undoes a generation whose enrollment ends without a certificate (denied, refused, or the
 * certificate is not one to use): the key pair for `label` whose public key is `spki` goes, so
 * enrolling again finds the label free and a card's few slots are not spent on it. A pair with
 * a certificate beside it (the identity in use, renewed with the same key) is never touched.
 * False when there was none to remove.
 */
export function discardGeneratedKey(config: TokenConfig, attached: Attached, label: string, spki: Buffer): boolean {
  // The labelled pair is in use once a certificate sits beside it; a renewal's waiting one never is.
  const inUse = hasCertificate(attached, label);
  const generated = keyPairsFor(config, attached, label).filter((pair) => {
    if (!pair.pending && inUse) return false;
    try {
      return publicKeyInfo(config, attached, pair, label).equals(spki);
    } catch (error) {
      if (error instanceof BrokerError) return false;
      throw error;
    }
  });
  for (const pair of generated) {
    for (const object of [pair.privateKey, pair.publicKey])
      if (object) attached.p11.C_DestroyObject(attached.session, object);
  }
  return generated.length > 0;
}

function hasCertificate(attached: Attached, label: string): boolean {
  return objectsLabelled(attached, CKO_CERTIFICATE, label).length > 0;
}

function checkLabel(label: string): void {
  // The pending prefix is Kubecred's own bookkeeping; a label made of it would confuse renewals.
  if (label.length === 0 || label.startsWith(pendingLabel('')) || /[\0-\x1f\x7f]/.test(label)) {
    throw new BrokerError(
      'bad-request',
      `"${label.replace(/[\0-\x1f\x7f]/g, '?')}" cannot label a key on a token`,
      `use printable text that does not start with "${pendingLabel('')}"`,
    );
  }
}
