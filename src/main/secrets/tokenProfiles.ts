import type { KubecredConfig, ProfileConfig } from '../../shared/config/schema.js';

/**
 * The profiles whose credentials are made with the token's PIN: a certificate on it (signed
 * through it by the exec proxy) or secrets stored on it. Their cached credentials go with the PIN.
 */
export function profilesUsingToken(config: KubecredConfig, token: string): string[] {
  return config.profiles
    .filter(
      (profile) =>
        profile.provider === 'static' &&
        (profile.secretStore === `token:${token}` || profile.tokenCertificate?.token === token),
    )
    .map((profile) => profile.name);
}

/** The token a profile's credential needs a PIN for, when it signs with a certificate on one. */
export function signingTokenOf(profile: ProfileConfig): string | undefined {
  return profile.provider === 'static' ? profile.tokenCertificate?.token : undefined;
}
