import type { ProxySettings } from './proxyEnvironment.js';
import { shownProxy } from './proxyTunnel.js';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * How a request to `url` leaves the machine, in words for an error or `kubecred status`: through
 * which proxy and where its address came from, or why it goes direct. A person behind a proxy
 * reads "directly" and knows what to check; never the proxy's password.
 */
export function routeWords(proxies: ProxySettings, url: URL): string {
  const route = proxies.routeFor(url);
  if (route) return `through the proxy ${shownProxy(route.proxy)} (from ${route.source})`;
  const https = url.protocol === 'https:';
  const configured = https ? proxies.httpsProxy : proxies.httpProxy;
  if (!configured) return `directly (no ${https ? 'HTTPS_PROXY' : 'HTTP_PROXY'} is set)`;
  if (LOOPBACK_NAMES.has(url.hostname) || url.hostname.startsWith('127.'))
    return 'directly (loopback never goes through a proxy)';
  return `directly (NO_PROXY=${proxies.noProxy} covers ${url.hostname})`;
}

/** The field a failed outbound request carries its route in (set by outboundFetch). */
interface RoutedError {
  outboundRoute?: string;
}

/** Marks a failed request's error with how it went, so the words of the error can say it. */
export function withRoute<E extends Error>(error: E, route: string): E {
  (error as E & RoutedError).outboundRoute ??= route;
  return error;
}

/** How a failed request went, where outboundFetch recorded it (along the error's causes). */
export function routeOf(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  for (let current = error; current && typeof current === 'object' && !seen.has(current);) {
    seen.add(current);
    const route = (current as RoutedError).outboundRoute;
    if (typeof route === 'string') return route;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
