import type { KubecredConfig } from '../../../shared/config/schema.js';
import type { ProxySettings } from '../../platform/proxyEnvironment.js';
import { proxyRouteWords } from '../../platform/proxyRouteWords.js';
import type { ProxyRoute } from '../../platform/proxyTunnel.js';
import { profileEndpoints, type ProfileEndpoint } from '../../providers/profileEndpoints.js';
import { fail, ok, warn, type Check, type Finding } from '../finding.js';
import type { TlsReach } from '../probes/tlsReach.js';

/** One server to try, once however many profiles use it, with the way the proxy settings send it. */
export interface NetworkTarget extends ProfileEndpoint {
  readonly profiles: readonly string[];
  readonly route: ProxyRoute | undefined;
  /** "through the proxy http://proxy:3128 (from HTTPS_PROXY)", "direct (NO_PROXY matches .corp)". */
  readonly routeWords: string;
}

/** A TLS handshake with the target through its route (doctor's probe). */
export type ReachOverTls = (target: NetworkTarget) => Promise<TlsReach>;

/** What doctor tries: each profile's servers, routed by this shell's proxy settings; and the wrapped plugins. */
export function networkTargets(
  config: KubecredConfig | undefined,
  proxies: ProxySettings,
  env: Readonly<Record<string, string | undefined>>,
): { targets: NetworkTarget[]; plugins: string[] } {
  const byServer = new Map<string, NetworkTarget & { profiles: string[] }>();
  for (const profile of config?.profiles ?? []) {
    for (const endpoint of profileEndpoints(profile, env)) {
      const key = [endpoint.url.href, endpoint.caFile ?? '', endpoint.tlsServerName ?? ''].join('\n');
      const known = byServer.get(key);
      if (known) {
        known.profiles.push(profile.name);
        continue;
      }
      const route = proxies.routeFor(endpoint.url);
      byServer.set(key, {
        ...endpoint,
        profiles: [profile.name],
        route: route ? { proxy: route.proxy, source: route.source } : undefined,
        routeWords: proxyRouteWords(proxies, endpoint.url),
      });
    }
  }
  const plugins = (config?.profiles ?? []).filter((p) => p.provider === 'exec').map((p) => p.name);
  return { targets: [...byServer.values()], plugins };
}

/**
 * Each profile's servers, tried as a login would reach them: through the proxy this shell's
 * settings choose (or direct, saying why), a TLS handshake trusting the system's roots and the
 * profile's CA. Says which proxy, and what it or the server answered, with the setting to change.
 */
export function networkRouteCheck(
  targets: readonly NetworkTarget[],
  plugins: readonly string[],
  proxyVariables: string,
  reach: ReachOverTls,
): Check {
  return {
    name: 'network',
    onTimeout: {
      status: 'warn',
      fix: 'a server or the proxy did not answer: check the network (VPN, proxy) and the URLs in config.yaml',
    },
    async run() {
      const tried = await Promise.all(targets.map((target) => judge(target, reach)));
      const wrapped = plugins.map((profile) =>
        ok(
          `plugin (${profile})`,
          `the plugin runs with the broker's environment and chooses its proxy itself; this shell's proxy variables: ${proxyVariables}`,
        ),
      );
      const all = [...tried, ...wrapped];
      return all.length > 0 ? all : [ok('network', 'no profile reaches a server outside this machine')];
    },
  };
}

async function judge(target: NetworkTarget, reach: ReachOverTls): Promise<Finding> {
  const { role, url, routeWords } = target;
  const title = `${role} ${url.host} (${target.profiles.join(', ')})`;
  if (url.protocol !== 'https:') return ok(title, `${routeWords}; plain http, not tried (only https endpoints are)`);
  const found = await reach(target);
  switch (found.kind) {
    case 'verified':
      return ok(title, `${routeWords}: TLS verified, its certificate signed by ${found.signedBy}`);
    case 'proxy':
      return fail(title, found.message, found.hint);
    case 'untrusted':
      return fail(
        title,
        `${routeWords}: its certificate${found.signedBy ? ` (signed by ${found.signedBy})` : ''} chains to no root this machine trusts (${found.code})`,
        untrustedFix(target),
      );
    case 'failed':
      return warn(title, `${routeWords}: ${found.message}`, unreachedFix(target));
  }
}

function untrustedFix({ route, caSetting, profiles }: NetworkTarget): string {
  const where = caSetting
    ? `the OS trust store (as kubectl and the browser use it), or the ${caSetting} of ${profiles.join(', ')}`
    : 'the OS trust store (as kubectl and the browser use it)';
  return route
    ? `a TLS-inspecting proxy may be re-signing this connection: put its root CA in ${where}`
    : `put the CA that signed it in ${where}`;
}

function unreachedFix({ route, role, url }: NetworkTarget): string {
  return route
    ? `check that the proxy lets ${url.host} through, and the ${role} URL in config.yaml`
    : `if this network reaches ${url.hostname} only through a proxy, set HTTPS_PROXY (and NO_PROXY for what goes direct); else check the ${role} URL in config.yaml and the network (VPN)`;
}
