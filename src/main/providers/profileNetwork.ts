import { PROXY_PASSWORD_FIELD, type ProfileConfig } from '../../shared/config/schema.js';
import { fixedProxy, withStoredProxyPassword } from '../platform/proxyOverrides.js';
import type { ProviderDependencies } from './providerDescriptor.js';

/**
 * The network one profile's provider sees: the profile's own `proxyUrl` where it names one (a
 * cluster behind its own proxy), else the person's proxy; and, for a proxy URL that names a user
 * only, the password the profile's store keeps, read when a tunnel is opened.
 */
export function profileNetwork(
  profile: ProfileConfig,
  dependencies: ProviderDependencies,
): ProviderDependencies['network'] {
  const chosen = profile.proxyUrl
    ? fixedProxy(new URL(profile.proxyUrl), `proxyUrl of profile "${profile.name}"`)
    : dependencies.network.proxies;
  const proxies = withStoredProxyPassword(chosen, {
    read: async () =>
      (await dependencies.storeFor(profile.name)).get({ profile: profile.name, field: PROXY_PASSWORD_FIELD }),
    setting: `kubecred secret set ${profile.name} ${PROXY_PASSWORD_FIELD}`,
  });
  return { ...dependencies.network, proxies };
}
