import type { ProfileConfig } from '../../shared/config/schema.js';
import type { Provider } from '../providers/provider.js';

export type ProviderFactory = (profile: ProfileConfig) => Provider;

/**
 * Keeps one provider per profile and notices when a profile's settings change, so the
 * broker can drop credentials made under the old settings.
 */
export class ProviderRegistry {
  private readonly byProfile = new Map<string, { fingerprint: string; provider: Provider }>();

  constructor(private readonly create: ProviderFactory) {}

  /** The provider already made for these exact settings, without making one (status must not reset change detection). */
  peek(profile: ProfileConfig): Provider | undefined {
    const known = this.byProfile.get(profile.name);
    return known && known.fingerprint === JSON.stringify(profile) ? known.provider : undefined;
  }

  /** The provider, and whether the profile changed since the last call. */
  resolve(profile: ProfileConfig): { provider: Provider; changed: boolean } {
    const fingerprint = JSON.stringify(profile);
    const known = this.byProfile.get(profile.name);
    if (known && known.fingerprint === fingerprint) return { provider: known.provider, changed: false };
    const provider = this.create(profile);
    this.byProfile.set(profile.name, { fingerprint, provider });
    return { provider, changed: known !== undefined };
  }
}
