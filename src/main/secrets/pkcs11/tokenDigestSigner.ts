import type { TokenConfig } from '../../../shared/config/schema.js';
import { BrokerError } from '../../core/brokerError.js';
import type { Handle } from './binding.js';
import { CKM_ECDSA, CKM_RSA_PKCS } from './constants.js';
import type { RequestHash } from './keyAlgorithms.js';
import { DIGEST_INFO, type SignaturePlan } from './signaturePlan.js';
import { tokenWanted } from './tokenErrors.js';
import { findKeyPair } from './tokenKeyPair.js';
import type { RunOffThread } from './tokenKeyGeneration.js';
import type { Attached } from './tokenSession.js';

const DIGEST_BYTES: Readonly<Record<RequestHash, number>> = { sha256: 32, sha384: 48 };
// Room for any signature: RSA-8192 is 1024 bytes, EC P-521 132.
const MAX_SIGNATURE_BYTES = 1024;

/**
 * Signs `digest` (made with `hash`) with the key pair for `label`, a renewal's waiting key
 * first, and returns the signature as X.509 and PKCS#10 carry it: DER SEQUENCE {r, s} for
 * ECDSA, PKCS#1 v1.5 over the DigestInfo for RSA. Like Pkcs11Service.sign, it does not know
 * what the digest is of: the caller builds what is signed (kubecred enroll, its request).
 */
export function signDigestWithKey(
  config: TokenConfig,
  attached: Attached,
  label: string,
  hash: RequestHash,
  digest: Buffer,
  offThread?: RunOffThread,
): Buffer | Promise<Buffer> {
  if (digest.length !== DIGEST_BYTES[hash]) {
    // A message passed where its digest belongs would be signed as garbage the cluster refuses.
    throw new BrokerError(
      'internal',
      `a ${hash} digest has ${DIGEST_BYTES[hash]} bytes, not ${digest.length}: the key "${label}" on ${tokenWanted(config)} signs digests, not messages`,
      'this is a bug in Kubecred; please report it',
    );
  }
  const pair = findKeyPair(config, attached, label);
  const plan: SignaturePlan =
    pair.keyType === 'ec'
      ? { mechanism: 'ecdsa', hash, data: digest }
      : { mechanism: 'rsa-pkcs1', hash, data: Buffer.concat([DIGEST_INFO[hash], digest]) };
  const signature = signWithKeyHandle(attached, pair.privateKey, plan, offThread);
  const encode = (raw: Buffer) => (pair.keyType === 'ec' ? ecdsaDer(raw) : raw);
  return signature instanceof Promise ? signature.then(encode) : encode(signature);
}

/**
 * One C_Sign with a key the caller found: here by label alone, as a key waiting for its first
 * certificate has none for tokenSigner's findCertificateAndKey to start from.
 */
function signWithKeyHandle(
  { p11, session }: Attached,
  key: Handle,
  plan: SignaturePlan,
  offThread?: RunOffThread,
): Buffer | Promise<Buffer> {
  p11.C_SignInit(session, { mechanism: plan.mechanism === 'ecdsa' ? CKM_ECDSA : CKM_RSA_PKCS }, key);
  if (!offThread) return Buffer.from(p11.C_Sign(session, plan.data, Buffer.alloc(MAX_SIGNATURE_BYTES)));
  return offThread(async () =>
    Buffer.from(await p11.C_SignAsync(session, plan.data, Buffer.alloc(MAX_SIGNATURE_BYTES))),
  );
}

/** The token's r || s (PKCS#11 ECDSA) as the DER SEQUENCE { INTEGER r, INTEGER s } X.509 wants. */
export function ecdsaDer(raw: Buffer): Buffer {
  if (raw.length === 0 || raw.length % 2 !== 0) throw new Error(`an ECDSA signature of ${raw.length} bytes`);
  const half = raw.length / 2;
  const body = Buffer.concat([derInteger(raw.subarray(0, half)), derInteger(raw.subarray(half))]);
  return Buffer.concat([Buffer.from([0x30]), derLength(body.length), body]);
}

function derInteger(unsigned: Buffer): Buffer {
  let start = 0;
  while (start < unsigned.length - 1 && unsigned[start] === 0) start++;
  let value = unsigned.subarray(start);
  // A set top bit would read as negative.
  if (value[0]! & 0x80) value = Buffer.concat([Buffer.from([0]), value]);
  return Buffer.concat([Buffer.from([0x02]), derLength(value.length), value]);
}

function derLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const octets: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) octets.unshift(rest % 256);
  return Buffer.from([0x80 | octets.length, ...octets]);
}
