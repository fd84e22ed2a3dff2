/** Names one secret: a field (token, client-key, ...) of a profile. */
export interface SecretRef {
  readonly profile: string;
  readonly field: string;
}

/**
 * Where secrets live (OS keychain, PKCS#11 token, ...). Implementations throw BrokerError
 * 'secret-store-unavailable' with the cause and the fix; they never fall back to plaintext.
 */
export interface SecretStore {
  readonly name: string;
  get(ref: SecretRef): Promise<string | undefined>;
  set(ref: SecretRef, value: string): Promise<void>;
  delete(ref: SecretRef): Promise<boolean>;
  /** The field names stored for the profile; never the values. */
  list(profile: string): Promise<string[]>;
}

export const SECRET_FIELD_PATTERN = /^[a-z][a-z0-9-]{0,62}$/;
