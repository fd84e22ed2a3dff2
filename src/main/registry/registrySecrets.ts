import type { SecretRef } from '../core/secretStore.js';

/**
 * Registries keep their secrets beside the profiles' under an owner name no profile can
 * have (":" is not allowed in profile names), so a registry and a profile of the same name
 * never share a secret.
 */
export function registrySecretOwner(registry: string): string {
  return `registry:${registry}`;
}

export const REGISTRY_FIELDS = { username: 'username', password: 'password', serverUrl: 'server-url' } as const;

export function registrySecret(registry: string, field: keyof typeof REGISTRY_FIELDS): SecretRef {
  return { profile: registrySecretOwner(registry), field: REGISTRY_FIELDS[field] };
}
