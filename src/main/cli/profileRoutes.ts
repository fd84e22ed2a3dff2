import type { ProfileSummary } from '../../shared/api/status.js';
import type { ProxySettings } from '../platform/proxyEnvironment.js';
import { proxyRouteWords } from '../platform/proxyRouteWords.js';

/**
 * The lines of `kubecred status` that say which way each profile's servers are reached:
 * "sso: issuer issuer.corp:443 through the proxy http://proxy:3128 (from HTTPS_PROXY)". The
 * routes are the broker's (it keeps the environment it was started with); where this shell's
 * settings would send a server another way, the line says so, and how to change it.
 */
export function renderRoutes(
  profiles: readonly ProfileSummary[],
  shell: ProxySettings,
  whose: 'broker' | 'shell',
): string {
  const lines = profiles.flatMap((profile) => [
    ...(profile.network ?? []).map(({ role, url, route }) => {
      const parsed = new URL(url);
      const here = proxyRouteWords(shell, parsed);
      const differs =
        whose === 'broker' && !sameWay(here, route)
          ? `; from this shell it would go ${here}: the broker keeps the environment it was started with (kubecred restart from this shell to change it, or name the proxy in config.yaml's network: so that no shell decides)`
          : '';
      return `  ${profile.name}: ${role} ${parsed.host} ${route}${differs}\n`;
    }),
    ...(profile.pluginProxy !== undefined
      ? [
          `  ${profile.name}: the plugin chooses its proxy itself, from ${whose === 'broker' ? "the broker's" : "this shell's"} proxy variables: ${profile.pluginProxy}\n`,
        ]
      : []),
  ]);
  if (lines.length === 0) return '';
  const heading =
    whose === 'broker'
      ? 'network (as the broker reaches each server):\n'
      : 'network (as a broker started from this shell would reach each server):\n';
  return heading + lines.join('');
}

/** Two routes are the same way when both are direct (for whatever reason) or name the same proxy. */
function sameWay(one: string, other: string): boolean {
  return one === other || (one.startsWith('direct') && other.startsWith('direct'));
}
