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
  /**
   * Whom a person would say signed in (an email, a user name), shown after a login and in
   * status: a login someone else completed in your name shows up as the wrong account.
   */
  readonly account?: string;
}
