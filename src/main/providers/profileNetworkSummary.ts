import type { ProfileSummary } from '../../shared/api/status.js';
import type { ProfileConfig } from '../../shared/config/schema.js';
import type { ProxySettings } from '../platform/proxyEnvironment.js';
import { proxyRouteWords, proxyVariablesWords } from '../platform/proxyRouteWords.js';
import { profileEndpoints } from './profileEndpoints.js';

/** One environment's routes, in words (its proxy settings stay with whoever read them). */
export interface NetworkWords {
  /** "through the proxy http://proxy:3128 (from HTTPS_PROXY)", "direct (no HTTPS_PROXY set)". */
  routeOf(url: URL): string;
  /** The proxy variables a wrapped plugin inherits, without passwords. */
  readonly pluginVariables: string;
  /** The environment, for endpoints it may override (AWS_ENDPOINT_URL_SSO_OIDC). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The words of the routes that `proxies`, read from `env`, choose. */
export function networkWords(proxies: ProxySettings, env: Readonly<Record<string, string | undefined>>): NetworkWords {
  return {
    routeOf: (url) => proxyRouteWords(proxies, url),
    // Asked each time: the broker's choice follows config.yaml.
    get pluginVariables() {
      return proxyVariablesWords(proxies);
    },
    env,
  };
}

/** Which way each of the profile's servers is reached; a wrapped plugin chooses itself, from what it inherits. */
export function profileNetworkSummary(
  profile: ProfileConfig,
  words: NetworkWords,
): Pick<ProfileSummary, 'network' | 'pluginProxy'> {
  const endpoints = profileEndpoints(profile, words.env);
  return {
    ...(endpoints.length > 0
      ? { network: endpoints.map(({ role, url }) => ({ role, url: url.href, route: words.routeOf(url) })) }
      : {}),
    ...(profile.provider === 'exec' ? { pluginProxy: words.pluginVariables } : {}),
  };
}
