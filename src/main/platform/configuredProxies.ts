import type { NetworkConfig } from '../../shared/config/schema.js';
import { proxySettings, type ProxySettingNames, type ProxySettings } from './proxyEnvironment.js';

const NAMES: ProxySettingNames = {
  httpsUnset: "no httpsProxy in config.yaml's network",
  httpUnset: "no httpProxy in config.yaml's network",
  noProxy: "noProxy in config.yaml's network",
};

/** Which config.yaml setting each variable of proxySettings stands for. */
const SOURCE_OF: Readonly<Record<string, string>> = {
  HTTPS_PROXY: "httpsProxy in config.yaml's network",
  HTTP_PROXY: "httpProxy in config.yaml's network",
};

/**
 * config.yaml's `network` as the broker's proxy choice: the same rules as the variables (Go's),
 * each route naming the config.yaml setting it came from, and for a wrapped plugin all six
 * variables set (empty where not configured), so nothing of the environment the broker started
 * in reaches it either.
 */
export function configuredProxies(network: NetworkConfig): ProxySettings {
  const chosen = proxySettings({
    HTTPS_PROXY: network.httpsProxy ?? '',
    HTTP_PROXY: network.httpProxy ?? '',
    NO_PROXY: network.noProxy ?? '',
  });
  const routeFor = (url: URL) => {
    const route = chosen.routeFor(url);
    return route && { ...route, source: SOURCE_OF[route.source] ?? route.source };
  };
  const variables: Record<string, string> = {};
  for (const [upper, value] of [
    ['HTTPS_PROXY', network.httpsProxy ?? ''],
    ['HTTP_PROXY', network.httpProxy ?? ''],
    ['NO_PROXY', network.noProxy ?? ''],
  ] as const) {
    variables[upper] = value;
    variables[upper.toLowerCase()] = value;
  }
  return { ...chosen, routeFor, proxyFor: (url) => routeFor(url)?.proxy, settings: NAMES, variables };
}

/** The broker's choice as a process that reads config.yaml itself sees it: its network, else `env`'s variables. */
export function chosenProxies(
  network: NetworkConfig | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ProxySettings {
  return network ? configuredProxies(network) : proxySettings(env);
}
