import { createHash } from 'node:crypto';
import { BrokerError } from '../core/brokerError.js';
import { DIGEST_INFO, type HashName, type SignaturePlan, type TokenKeyType } from '../secrets/pkcs11/signaturePlan.js';
import { isTls12ClientTranscript } from '../secrets/pkcs11/tls12Transcript.js';

/** Which handshakes a profile's proxy may ask signatures for: its proxy.tlsVersion. */
export type ProxyTlsVersion = '1.2' | '1.3';

// RFC 8446, 4.4.3: 64 spaces, the context string, a zero byte, then the transcript hash
// (SHA-256 or SHA-384, the cipher suite's). Nothing else is ever signed with the token's key;
// which server the handshake is with, the broker checks from the handshake (handshakeBinding).
export const CLIENT_VERIFY_PREFIX = Buffer.concat([
  Buffer.alloc(64, 0x20),
  Buffer.from('TLS 1.3, client CertificateVerify\0', 'latin1'),
]);
const TRANSCRIPT_HASH_LENGTHS = new Set([32, 48]);

/**
 * Checks that `message` is what a client signs in the handshake the profile allows (a TLS 1.3
 * client CertificateVerify; with `tlsVersion` 1.2, the 1.2 handshake transcript instead) and
 * says how the token signs it for `scheme`. Refuses anything else, a scheme the version
 * forbids (PKCS#1 v1.5 in 1.3), and a scheme that does not fit the token's key.
 */
export function planSignature(
  scheme: string,
  message: Buffer,
  keyType: TokenKeyType,
  tlsVersion: ProxyTlsVersion = '1.3',
): SignaturePlan {
  const match = /^(rsa_pss|rsa_pkcs1|ecdsa)_(sha256|sha384|sha512)$/.exec(scheme);
  if (!match) throw refused(`unknown signature scheme ${JSON.stringify(scheme).slice(0, 40)}`);
  const [, family, hash] = match as unknown as [string, 'rsa_pss' | 'rsa_pkcs1' | 'ecdsa', HashName];
  if (tlsVersion === '1.2') {
    if (!isTls12ClientTranscript(message))
      throw refused('the proxy asked to sign something that is not a TLS 1.2 client handshake transcript');
  } else {
    const prefixOk =
      message.length > CLIENT_VERIFY_PREFIX.length &&
      message.subarray(0, CLIENT_VERIFY_PREFIX.length).equals(CLIENT_VERIFY_PREFIX);
    if (!prefixOk || !TRANSCRIPT_HASH_LENGTHS.has(message.length - CLIENT_VERIFY_PREFIX.length)) {
      throw refused('the proxy asked to sign something that is not a TLS 1.3 client CertificateVerify');
    }
    if (family === 'rsa_pkcs1') throw refused('TLS 1.3 does not sign with RSA PKCS#1 v1.5');
  }
  if ((family === 'ecdsa') !== (keyType === 'ec'))
    throw refused(`scheme ${scheme} does not fit the token's ${keyType === 'ec' ? 'EC' : 'RSA'} key`);
  const digest = createHash(hash).update(message).digest();
  if (family === 'rsa_pkcs1') return { mechanism: 'rsa-pkcs1', hash, data: Buffer.concat([DIGEST_INFO[hash], digest]) };
  return { mechanism: family === 'ecdsa' ? 'ecdsa' : 'rsa-pss', hash, data: digest };
}

function refused(message: string): BrokerError {
  return new BrokerError(
    'denied',
    `kubecred-proxy: ${message}`,
    "this is a bug in kubecred-proxy or another program on the broker's control channel; restart Kubecred",
  );
}
