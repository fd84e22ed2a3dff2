/**
 * A credential as the broker holds it in memory, independent of the ExecCredential
 * version it is later printed in.
 */
export interface Credential {
  readonly token?: string;
  readonly clientCertificateData?: string;
  readonly clientKeyData?: string;
  /** Absent: valid until the profile's secrets change or the user logs out. */
  readonly expiresAt?: Date;
}

export function credentialKind(credential: Credential): 'token' | 'client-certificate' {
  return credential.token !== undefined ? 'token' : 'client-certificate';
}
