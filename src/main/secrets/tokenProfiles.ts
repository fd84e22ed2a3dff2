import type { KubecredConfig, ProfileConfig } from '../../shared/config/schema.js';
import { tokenOfStoreRef } from '../../shared/config/secretStoreRef.js';

/**
 * The profiles whose credentials are made with the token's PIN: a certificate on it (signed
 * through it by the exec proxy) or secrets stored on it. Their cached credentials go with the PIN.
 */
export function profilesUsingToken(config: KubecredConfig, token: string): string[] {
  return config.profiles
    .filter(
      (profile) =>
        profile.provider === 'static' &&
        (tokenOfStoreRef(profile.secretStore) === token || profile.tokenCertificate?.token === token),
    )
    .map((profile) => profile.name);
}

/** The token a profile's credential needs a PIN for: it signs with a certificate on one, or keeps its secret there. */
export function pinTokenOf(profile: ProfileConfig): string | undefined {
  if (profile.provider !== 'static') return undefined;
  if (profile.tokenCertificate) return profile.tokenCertificate.token;
  return tokenOfStoreRef(profile.secretStore);
}
