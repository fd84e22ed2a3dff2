import { readFile } from 'node:fs/promises';
import { outboundFetch } from '../../platform/outboundFetch.js';
import type { ProxySettings } from '../../platform/proxyEnvironment.js';
import { ProxyRouteError } from '../../platform/proxyTunnel.js';
import { secondsText } from '../seconds.js';

/** The network as the person's tools see it: their proxy and the machine's trusted roots. */
export interface ProbeNetwork {
  readonly proxies: ProxySettings;
  readonly roots: readonly string[];
}

/**
 * GETs the URL once and returns its Date header. Any answer will do, even an error page: only
 * the server's clock is wanted. Through the proxy a login would take, trusting the system's
 * roots and the profile's caFile, as the OIDC provider does.
 */
export async function issuerDate(
  url: string,
  caFile: string | undefined,
  timeoutMs: number,
  network: ProbeNetwork,
): Promise<string | undefined> {
  const ca = caFile ? [...network.roots, await readFile(caFile, 'utf8')] : network.roots;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const answer = await outboundFetch({ ca, proxies: network.proxies, tunnelTimeoutMs: timeoutMs })(url, {
      method: 'GET',
      signal,
    });
    return answer.headers.get('date') ?? undefined;
  } catch (error) {
    if (signal.aborted) throw new Error(`no answer within ${secondsText(timeoutMs)}`);
    if (error instanceof ProxyRouteError) throw new Error(`${error.message}; ${error.hint}`);
    throw error;
  }
}
