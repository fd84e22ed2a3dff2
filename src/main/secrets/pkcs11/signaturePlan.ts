// What a signature on a token is made of; which messages may be signed is the proxy's to decide
// (src/main/proxy/planSignature.ts), as only it knows the handshake.

export type HashName = 'sha256' | 'sha384' | 'sha512';
export type TokenKeyType = 'rsa' | 'ec';

/** One C_Sign: the raw mechanism and what goes in (the token never hashes: that would hash twice). */
export interface SignaturePlan {
  readonly mechanism: 'rsa-pss' | 'rsa-pkcs1' | 'ecdsa';
  readonly hash: HashName;
  /** The digest of the message; for PSS the salt is as long (RFC 8446, 4.2.3); for PKCS#1 v1.5 inside its DigestInfo. */
  readonly data: Buffer;
}
