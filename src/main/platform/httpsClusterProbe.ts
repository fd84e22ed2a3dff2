import https from 'node:https';
import type { ClusterInfo } from '../../shared/execCredential.js';
import type { ClusterProbe } from '../core/ports.js';
import type { ProxySettings } from './proxyEnvironment.js';
import { ProxyTunnelAgent, type ProxyRoute } from './proxyTunnel.js';

const PROBE_TIMEOUT_MS = 3_000;

/**
 * GET /version on the cluster with the token, trusting what the kubeconfig trusts. The API
 * server answers 401 to a bearer token it does not accept, even on paths anonymous users may
 * read, so 401 means "this token is dead"; anything else (200, 403, a network error) means
 * nothing is known, and the cached token stays.
 */
export class HttpsClusterProbe implements ClusterProbe {
  /** The person's proxy and the machine's roots, as kubectl would reach the cluster. */
  constructor(private readonly network: { readonly proxies: ProxySettings; readonly roots: readonly string[] }) {}

  rejects(cluster: ClusterInfo, token: string): Promise<boolean> {
    return new Promise((resolve) => {
      let url: URL;
      try {
        url = new URL('/version', cluster.server);
      } catch {
        return resolve(false);
      }
      if (url.protocol !== 'https:') return resolve(false); // never send a token in clear
      const clusterCa = cluster['certificate-authority-data'];
      // The kubeconfig's CA alone when it names one, as kubectl trusts it; else the system's roots.
      const ca = clusterCa ? Buffer.from(clusterCa, 'base64') : [...this.network.roots];
      const route = clusterRoute(cluster, url, this.network.proxies);
      if (route === 'unspoken') return resolve(false); // a socks5 proxy-url: nothing known
      const tls = {
        ca,
        ...(cluster['tls-server-name'] ? { servername: cluster['tls-server-name'] } : {}),
        rejectUnauthorized: cluster['insecure-skip-tls-verify'] !== true,
      };
      const request = https.request(url, {
        method: 'GET',
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          'user-agent': 'kubecred-revocation-probe',
        },
        ...tls,
        timeout: PROBE_TIMEOUT_MS,
        agent: route ? new ProxyTunnelAgent(route, tls) : false,
      });
      request.once('response', (response) => {
        response.resume();
        resolve(response.statusCode === 401);
      });
      request.once('timeout', () => request.destroy());
      request.once('error', () => resolve(false));
      request.end();
    });
  }
}

/**
 * The proxy kubectl would use for the cluster: the kubeconfig's proxy-url first, else the
 * person's proxy variables. 'unspoken': a proxy-url this probe cannot speak (socks5; it tunnels
 * through http and https proxies only), so the probe is not made rather than made around it.
 */
function clusterRoute(cluster: ClusterInfo, url: URL, proxies: ProxySettings): ProxyRoute | undefined | 'unspoken' {
  const own = cluster['proxy-url'];
  if (!own) return proxies.routeFor(url);
  if (URL.canParse(own) && /^https?:$/.test(new URL(own).protocol))
    return { proxy: new URL(own), source: "the cluster's proxy-url" };
  return 'unspoken';
}
