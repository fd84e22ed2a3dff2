import { proxySettings, type ProxySettingNames, type ProxySettings } from './proxyEnvironment.js';
import { shownProxy } from './proxyTunnel.js';

const VARIABLE_NAMES: ProxySettingNames = {
  httpsUnset: 'no HTTPS_PROXY set',
  httpUnset: 'no HTTP_PROXY set',
  noProxy: 'NO_PROXY',
};

/** Any proxy will do to ask whether a host would bypass one: only the NO_PROXY rules decide. */
const SOME_PROXY = 'http://proxy.invalid:3128';

/**
 * Which way a request to `url` goes, in words for `kubecred status` and doctor: "through the
 * proxy http://proxy:3128 (from HTTPS_PROXY)", or "direct (...)" with the reason: no proxy
 * set for its scheme, a loopback host, or the NO_PROXY entry that matches it. The proxy is
 * shown without its user and password.
 */
export function proxyRouteWords(proxies: ProxySettings, url: URL): string {
  const route = proxies.routeFor(url);
  if (route) return `through the proxy ${shownProxy(route.proxy)} (from ${route.source})`;
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `direct (${url.protocol} is never proxied)`;
  const https = url.protocol === 'https:';
  const names = proxies.settings ?? VARIABLE_NAMES;
  if (!(https ? proxies.httpsProxy : proxies.httpProxy))
    return `direct (${https ? names.httpsUnset : names.httpUnset})`;
  if (bypasses('', url)) return 'direct (a loopback host never goes through a proxy)';
  const entry = proxies.noProxy
    .split(',')
    .map((one) => one.trim())
    .find((one) => one !== '' && bypasses(one, url));
  return `direct (${names.noProxy} matches ${entry ?? url.hostname})`;
}

/** Whether `url` would go direct with this NO_PROXY alone (Go's rules, as proxySettings keeps them). */
function bypasses(noProxy: string, url: URL): boolean {
  return (
    proxySettings({ HTTPS_PROXY: SOME_PROXY, HTTP_PROXY: SOME_PROXY, NO_PROXY: noProxy }).routeFor(url) === undefined
  );
}

/**
 * The proxy variables a wrapped plugin inherits from the broker, as they may be shown: the
 * proxies without user or password, NO_PROXY as written; "none" when none is set.
 */
export function proxyVariablesWords(proxies: ProxySettings): string {
  if (proxies.settings) return `config.yaml's network (${configuredWords(proxies)})`;
  return variablesWords(proxies);
}

function configuredWords(proxies: ProxySettings): string {
  const words = variablesWords(proxies);
  return words === 'none' ? 'no proxy' : words;
}

function variablesWords(proxies: ProxySettings): string {
  const set = [
    ...(proxies.httpsProxy ? [`HTTPS_PROXY=${shownProxy(proxies.httpsProxy)}`] : []),
    ...(proxies.httpProxy ? [`HTTP_PROXY=${shownProxy(proxies.httpProxy)}`] : []),
    ...(proxies.noProxy ? [`NO_PROXY=${proxies.noProxy}`] : []),
  ];
  return set.length > 0 ? set.join(', ') : 'none';
}
