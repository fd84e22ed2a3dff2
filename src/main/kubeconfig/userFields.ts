/**
 * The fields of a kubeconfig user by what they hold: one list each, for doctor's plaintext
 * warning, the redacted diffs and import/install alike.
 */

/** Secret values written in the file itself. */
export const INLINE_SECRET_FIELDS = ['token', 'client-key-data', 'password'] as const;

/** What a diff hides: the secrets, and the certificate that pairs with the key (long, and half a credential). */
export const INLINE_CREDENTIAL_FIELDS = [...INLINE_SECRET_FIELDS, 'client-certificate-data'] as const;

/** The legacy auth-provider keeps OIDC tokens and the client secret in its config map. */
export const AUTH_PROVIDER_SECRET_FIELDS = ['id-token', 'refresh-token', 'access-token', 'client-secret'] as const;

/** A static credential's parts: the profile's secret field, its inline key and its file key. */
export const STATIC_CREDENTIAL_SOURCES = [
  { field: 'token', inline: 'token', path: 'tokenFile' },
  { field: 'client-certificate', inline: 'client-certificate-data', path: 'client-certificate' },
  { field: 'client-key', inline: 'client-key-data', path: 'client-key' },
] as const;

/** Keys that make up a user's credential; import and install replace them with Kubecred's exec block. */
export const CREDENTIAL_KEYS = [
  ...STATIC_CREDENTIAL_SOURCES.flatMap(({ inline, path }) => [inline, path]),
  'auth-provider',
  'exec',
] as const;
