import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { routeForConnection, type ProxySettings } from '../../platform/proxyEnvironment.js';
import { failedRequest } from '../../platform/outboundRoute.js';
import { ProxyTunnelAgent } from '../../platform/proxyTunnel.js';

/** An HTTP answer, read whole: Keystone's are small (the catalog is left out). */
export interface HttpAnswer {
  readonly status: number;
  header(name: string): string | undefined;
  readonly body: string;
}

export interface PostOptions {
  readonly signal?: AbortSignal | undefined;
  readonly timeoutMs: number;
}

/** POSTs a JSON body; rejects with the transport's own error (mapped to a BrokerError by the caller). */
export type PostJson = (url: string, json: string, options: PostOptions) => Promise<HttpAnswer>;

/** GETs with extra headers (a token validation carries two tokens in headers, never in the URL). */
export type GetJson = (url: string, headers: Record<string, string>, options: PostOptions) => Promise<HttpAnswer>;

/** Both ways Kubecred talks to Keystone, over one transport. */
export interface KeystoneHttp {
  readonly post: PostJson;
  readonly get: GetJson;
}

interface Exchange {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly json?: string;
}

const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
const HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json', 'User-Agent': 'kubecred' };

function codedError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/**
 * node:http(s) rather than fetch: Node 20's fetch cannot be given a CA bundle or a proxy, and a
 * private Keystone usually has a private CA. `ca` replaces the default roots, as OS_CACERT does
 * for client-keystone-auth; without it, the system's roots and Node's. Through the person's
 * proxy where their tools would use one. No pooled agent: a login is rare, and pooled sockets
 * would outlive it.
 */
export function nodeHttp(ca: string | readonly string[] | undefined, proxies?: ProxySettings): KeystoneHttp {
  const exchange = nodeExchange(typeof ca === 'string' ? [ca] : ca, proxies);
  return {
    post: (url, json, options) =>
      exchange({ method: 'POST', url, headers: { 'Content-Length': String(Buffer.byteLength(json)) }, json }, options),
    get: (url, headers, options) => exchange({ method: 'GET', url, headers }, options),
  };
}

function nodeExchange(
  ca: readonly string[] | undefined,
  proxies: ProxySettings | undefined,
): (exchange: Exchange, options: PostOptions) => Promise<HttpAnswer> {
  return async ({ method, url, headers: extra, json }, { signal, timeoutMs }) => {
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    const route = secure && proxies ? await routeForConnection(proxies, target) : undefined;
    return new Promise<HttpAnswer>((resolve, reject) => {
      const send = secure ? httpsRequest : httpRequest;
      const request = send(
        target,
        {
          method,
          headers: { ...HEADERS, ...extra },
          agent: route ? new ProxyTunnelAgent(route, ca ? { ca: [...ca] } : {}) : false,
          timeout: timeoutMs,
          ...(signal ? { signal } : {}),
          ...(secure && ca !== undefined ? { ca: [...ca] } : {}),
        },
        (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_ANSWER_BYTES)
              request.destroy(codedError(`the answer is larger than ${MAX_ANSWER_BYTES} bytes`, 'KUBECRED_TOO_LARGE'));
            else chunks.push(chunk);
          });
          response.on('end', () => {
            const headers = response.headers;
            resolve({
              status: response.statusCode ?? 0,
              header: (name) => {
                const value = headers[name.toLowerCase()];
                return Array.isArray(value) ? value[0] : value;
              },
              body: Buffer.concat(chunks).toString('utf8'),
            });
          });
          response.on('error', reject);
        },
      );
      request.on('timeout', () =>
        request.destroy(codedError(`no answer within ${Math.round(timeoutMs / 1000)} s`, 'ETIMEDOUT')),
      );
      // The error says how the request went (which proxy, or why none); plain http goes direct.
      request.on('error', (error: Error) =>
        reject(secure && proxies ? failedRequest(error, proxies, target, route) : error),
      );
      request.end(json);
    });
  };
}

/** An injected fetch (tests, other runtimes). It cannot take a CA, so a profile with caFile never uses it. */
export function fetchHttp(fetchImpl: typeof fetch): KeystoneHttp {
  const exchange = async (
    { method, url, headers, json }: Exchange,
    { signal, timeoutMs }: PostOptions,
  ): Promise<HttpAnswer> => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const response = await fetchImpl(url, {
      method,
      headers: { ...HEADERS, ...headers },
      ...(json === undefined ? {} : { body: json }),
      redirect: 'manual',
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    const body = await response.text();
    return { status: response.status, header: (name) => response.headers.get(name) ?? undefined, body };
  };
  return {
    post: (url, json, options) => exchange({ method: 'POST', url, headers: {}, json }, options),
    get: (url, headers, options) => exchange({ method: 'GET', url, headers }, options),
  };
}
