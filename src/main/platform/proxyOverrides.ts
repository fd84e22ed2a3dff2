import type { ProxySettings } from './proxyEnvironment.js';
import type { ProxyRoute } from './proxyTunnel.js';

/**
 * One proxy for every request, as kubeconfig's `proxy-url` is: a cluster that needs its own
 * proxy names it, and NO_PROXY, written for the person's usual proxy, does not apply to it.
 */
export function fixedProxy(proxy: URL, source: string): ProxySettings {
  const route: ProxyRoute = { proxy, source, profiles: true };
  return { httpProxy: proxy, httpsProxy: proxy, noProxy: '', routeFor: () => route, proxyFor: () => proxy };
}

/** The same choices, with the password of a proxy whose URL names only a user read from the keychain. */
export function withStoredProxyPassword(
  settings: ProxySettings,
  storedPassword: NonNullable<ProxyRoute['storedPassword']>,
): ProxySettings {
  const withPassword = (route: ProxyRoute | undefined) => route && { ...route, storedPassword };
  const routeFor = (url: URL): ProxyRoute | undefined => withPassword(settings.routeFor(url));
  // Read through, never copied: the broker's choice follows config.yaml (BrokerProxies).
  return {
    get httpProxy() {
      return settings.httpProxy;
    },
    get httpsProxy() {
      return settings.httpsProxy;
    },
    get noProxy() {
      return settings.noProxy;
    },
    get settings() {
      return settings.settings;
    },
    get variables() {
      return settings.variables;
    },
    routeFor,
    ...(settings.routeNow ? { routeNow: async (url: URL) => withPassword(await settings.routeNow!(url)) } : {}),
    proxyFor: (url) => routeFor(url)?.proxy,
  };
}
