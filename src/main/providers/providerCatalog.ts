import { PROXY_PASSWORD_FIELD, type ProfileConfig } from '../../shared/config/schema.js';
import { profileNetwork } from './profileNetwork.js';
import type { ProviderKind } from '../../shared/config/providerFacts.js';
import { eksDescriptor } from './eks/eksDescriptor.js';
import { execDescriptor } from './exec/execDescriptor.js';
import { keystoneDescriptor } from './keystone/keystoneDescriptor.js';
import { oidcDescriptor } from './oidc/oidcDescriptor.js';
import type { Provider } from './provider.js';
import type { ProfileOf, ProviderDependencies, ProviderDescriptor } from './providerDescriptor.js';
import { staticDescriptor } from './static/staticDescriptor.js';

/** Every provider the broker can run, keyed by config.yaml's union: a new kind does not compile until it is here. */
export const PROVIDER_CATALOG: { readonly [Kind in ProviderKind]: ProviderDescriptor<Kind> } = {
  static: staticDescriptor,
  exec: execDescriptor,
  oidc: oidcDescriptor,
  keystone: keystoneDescriptor,
  eks: eksDescriptor,
};

// TypeScript cannot tie a looked-up descriptor to the narrowed profile (a correlated union);
// the catalog's mapped type guarantees the pairing, so this one cast says it once.
function descriptorOf<Kind extends ProviderKind>(profile: ProfileOf<Kind>): ProviderDescriptor<Kind> {
  return PROVIDER_CATALOG[profile.provider as Kind] as ProviderDescriptor<Kind>;
}

export function createProvider(profile: ProfileConfig, dependencies: ProviderDependencies): Provider {
  return descriptorOf(profile).create(profile, { ...dependencies, network: profileNetwork(profile, dependencies) });
}

/**
 * The secret fields a profile's provider reads: a secret stored under any other name would sit
 * in the keychain unused while kubectl keeps failing.
 */
export function secretFieldsOf(profile: Pick<ProfileConfig, 'provider'>): readonly string[] {
  // A profile may reach its servers through a proxy whose password the keychain keeps; a wrapped
  // plugin makes its own connections, with the proxy of its own environment.
  const own = PROVIDER_CATALOG[profile.provider].secretFields;
  return profile.provider === 'exec' ? own : [...own, PROXY_PASSWORD_FIELD];
}

/** Whether this profile needs a person now and then, when its settings decide (else undefined). */
export function profileSignsIn(profile: ProfileConfig, env: ProviderDependencies['env']): Promise<boolean | undefined> {
  return descriptorOf(profile).signsIn?.(profile, env) ?? Promise.resolve(undefined);
}
