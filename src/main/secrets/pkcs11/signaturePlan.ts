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

// RFC 8017, 9.2 note 1: the DER DigestInfo before each hash, for a token's raw CKM_RSA_PKCS
// (the proxy's TLS signatures and enroll's certificate requests both put it in front).
export const DIGEST_INFO: Readonly<Record<HashName, Buffer>> = {
  sha256: Buffer.from('3031300d060960864801650304020105000420', 'hex'),
  sha384: Buffer.from('3041300d060960864801650304020205000430', 'hex'),
  sha512: Buffer.from('3051300d060960864801650304020305000440', 'hex'),
};
