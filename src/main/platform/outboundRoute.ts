import type { ProxySettings } from './proxyEnvironment.js';
import { proxyRouteWords } from './proxyRouteWords.js';
import { tunnelTrustError, type ProxyRoute } from './proxyTunnel.js';

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

/** ", through the proxy …" or ", direct (…)": how the failed request went, when known; else "". */
export function routeSuffix(error: unknown): string {
  const route = routeOf(error);
  return route ? `, ${route}` : '';
}

/**
 * A failed outbound request's error, as every transport reports it: an unknown root inside a
 * proxy's tunnel in the words of a TLS-inspecting proxy, and the way the request went recorded.
 * `route`: the proxy the request went through (https only), as proxies.routeFor chose it.
 */
export function failedRequest(error: Error, proxies: ProxySettings, url: URL, route: ProxyRoute | undefined): Error {
  const told = route && url.protocol === 'https:' ? (tunnelTrustError(error, route, url) as Error) : error;
  return withRoute(told, proxyRouteWords(proxies, url));
}
