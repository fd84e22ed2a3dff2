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
  /**
   * Who the credential speaks for (e.g. OIDC issuer + subject). When it changes, every other
   * cached credential of the profile is dropped: they belong to the previous identity.
   */
  readonly identity?: string;
}

export function credentialKind(credential: Credential): 'token' | 'client-certificate' {
  return credential.token !== undefined ? 'token' : 'client-certificate';
}
