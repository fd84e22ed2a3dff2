import { z } from 'zod';

// config.yaml names a profile's secret store as text ("keychain", "encrypted-file",
// "token:yubikey"). Code reads that text only through parseSecretStoreRef, so every place that
// picks a store switches over this union: a new store is a compile error wherever a switch
// forgets it, not a name that falls through to the PKCS#11 plugin.

export type SecretStoreRef =
  | { readonly kind: 'keychain' }
  | { readonly kind: 'encrypted-file' }
  | { readonly kind: 'token'; readonly token: string };

export type SecretStoreKind = SecretStoreRef['kind'];

/** A token's name, as tokens: in config.yaml gives it (and as "token:<name>" spells it). */
export const TOKEN_NAME_PATTERN = /^[a-z0-9]([a-z0-9._-]{0,61}[a-z0-9])?$/;

const TOKEN_PREFIX = 'token:';

export function parseSecretStoreRef(text: string): SecretStoreRef | undefined {
  if (text === 'keychain' || text === 'encrypted-file') return { kind: text };
  const token = text.startsWith(TOKEN_PREFIX) ? text.slice(TOKEN_PREFIX.length) : undefined;
  return token !== undefined && TOKEN_NAME_PATTERN.test(token) ? { kind: 'token', token } : undefined;
}

export function formatSecretStoreRef(ref: SecretStoreRef): string {
  return ref.kind === 'token' ? `${TOKEN_PREFIX}${ref.token}` : ref.kind;
}

/** The token a store reference names, if it names one. */
export function tokenOfStoreRef(text: string | undefined): string | undefined {
  const ref = text === undefined ? undefined : parseSecretStoreRef(text);
  return ref?.kind === 'token' ? ref.token : undefined;
}

export const secretStoreRefSchema = z.string().refine((text) => parseSecretStoreRef(text) !== undefined, {
  message: 'a secret store is keychain, encrypted-file or token:<token name>',
});
