import type { TokenConfig } from '../../../shared/config/schema.js';
import { BrokerError } from '../../core/brokerError.js';
import type { HashName, SignaturePlan, TokenKeyType } from './signaturePlan.js';
import { findCertificateAndKey } from './clientCertificate.js';
import {
  CKG_MGF1_SHA256,
  CKG_MGF1_SHA384,
  CKG_MGF1_SHA512,
  CKM_ECDSA,
  CKM_RSA_PKCS,
  CKM_RSA_PKCS_PSS,
  CKM_SHA256,
  CKM_SHA384,
  CKM_SHA512,
} from './constants.js';
import { keyTypeOf } from './tokenKeyPair.js';
import { tokenWanted } from './tokenErrors.js';
import type { Attached } from './tokenSession.js';

/**
 * Runs the signature on a worker thread (a card can wait seconds for a touch); given only for
 * a module initialised for OS locking.
 */
export type OffThread = (call: () => Promise<Buffer>) => Promise<Buffer>;

/** The certificate a token key proves, and what kind of key it is: what the proxy needs to offer it upstream. */
export interface TokenKey {
  readonly certificatePem: string;
  readonly keyType: TokenKeyType;
  /** When the token's PIN grace ends: signing after it asks for the PIN again. */
  readonly loggedInUntil?: Date;
}

const HASHES: Readonly<Record<HashName, { readonly mechanism: number; readonly mgf: number }>> = {
  sha256: { mechanism: CKM_SHA256, mgf: CKG_MGF1_SHA256 },
  sha384: { mechanism: CKM_SHA384, mgf: CKG_MGF1_SHA384 },
  sha512: { mechanism: CKM_SHA512, mgf: CKG_MGF1_SHA512 },
};
// Room for any signature: RSA-8192 is 1024 bytes, EC P-521 132.
const MAX_SIGNATURE_BYTES = 1024;

export function describeTokenKey(config: TokenConfig, attached: Attached, label: string): TokenKey {
  const { certificate, key } = findCertificateAndKey(config, attached, label);
  return { certificatePem: certificate.toString(), keyType: keyTypeOf(config, attached, key, label) };
}

/**
 * One C_Sign with the key labelled `label`, which never leaves the token. `pssParams` is the
 * binding's tag for RSA-PSS parameters (pkcs11js numbers it itself). For ECDSA the token
 * answers r||s; the proxy turns that into DER.
 */
export function signWithTokenKey(
  config: TokenConfig,
  attached: Attached,
  label: string,
  plan: SignaturePlan,
  pssParams: number,
  offThread?: OffThread,
): Buffer | Promise<Buffer> {
  const { p11, session } = attached;
  const { key } = findCertificateAndKey(config, attached, label);
  const keyType = keyTypeOf(config, attached, key, label);
  if ((plan.mechanism === 'ecdsa') !== (keyType === 'ec')) {
    throw new BrokerError(
      'token-unavailable',
      `the key "${label}" on ${tokenWanted(config)} is ${keyType === 'ec' ? 'an EC' : 'an RSA'} key, not what the proxy asked to sign with`,
      'restart Kubecred so the proxy reads the key again',
    );
  }
  const hash = HASHES[plan.hash];
  const mechanism =
    plan.mechanism === 'ecdsa'
      ? { mechanism: CKM_ECDSA }
      : plan.mechanism === 'rsa-pkcs1'
        ? { mechanism: CKM_RSA_PKCS } // the plan's data is the DigestInfo already
        : {
            mechanism: CKM_RSA_PKCS_PSS,
            parameter: { type: pssParams, hashAlg: hash.mechanism, mgf: hash.mgf, saltLen: plan.data.length },
          };
  p11.C_SignInit(session, mechanism, key);
  if (!offThread) return Buffer.from(p11.C_Sign(session, plan.data, Buffer.alloc(MAX_SIGNATURE_BYTES)));
  return offThread(async () =>
    Buffer.from(await p11.C_SignAsync(session, plan.data, Buffer.alloc(MAX_SIGNATURE_BYTES))),
  );
}
