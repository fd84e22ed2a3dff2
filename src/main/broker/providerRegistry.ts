import type { ProfileConfig } from '../../shared/config/schema.js';
import type { Provider } from '../providers/provider.js';

export type ProviderFactory = (profile: ProfileConfig) => Provider;

interface Known {
  /** The config object last seen: the config source hands out the same one until the file changes. */
  profile: ProfileConfig;
  readonly fingerprint: string;
  readonly provider: Provider;
}

/**
 * Keeps one provider per profile and notices when a profile's settings change, so the
 * broker can drop credentials made under the old settings.
 */
export class ProviderRegistry {
  private readonly byProfile = new Map<string, Known>();

  constructor(private readonly create: ProviderFactory) {}

  /** The provider already made for these exact settings, without making one (status must not reset change detection). */
  peek(profile: ProfileConfig): Provider | undefined {
    const known = this.byProfile.get(profile.name);
    return known && sameSettings(known, profile) ? known.provider : undefined;
  }

  /** The provider, and whether the profile changed since the last call. */
  resolve(profile: ProfileConfig): { provider: Provider; changed: boolean } {
    const known = this.byProfile.get(profile.name);
    if (known && sameSettings(known, profile)) return { provider: known.provider, changed: false };
    const provider = this.create(profile);
    this.byProfile.set(profile.name, { profile, fingerprint: JSON.stringify(profile), provider });
    return { provider, changed: known !== undefined };
  }
}

// The exec plugin's hot path: compare by identity first, serialise only after a reload.
function sameSettings(known: Known, profile: ProfileConfig): boolean {
  if (known.profile === profile) return true;
  if (known.fingerprint !== JSON.stringify(profile)) return false;
  known.profile = profile;
  return true;
}
