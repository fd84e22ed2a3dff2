import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { routeForConnection, type ProxySettings } from './proxyEnvironment.js';
import { failedRequest } from './outboundRoute.js';
import { ProxyTunnelAgent, proxyAuthorization, shownProxy, storedPasswordOf } from './proxyTunnel.js';

const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);

/** What a fetch to a server outside sends: the fields openid-client and the providers use. */
export interface OutboundRequest {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  /** A stream is refused at once: openid-client and the providers send forms and JSON only. */
  readonly body?: string | Uint8Array | ArrayBuffer | URLSearchParams | ReadableStream | null;
  readonly signal?: AbortSignal | null;
}

export type OutboundFetch = (url: string, options: OutboundRequest) => Promise<Response>;

export interface OutboundOptions {
  /** The roots to trust, where not Node's own (the system's, a profile's caFile). */
  readonly ca?: readonly string[];
  /** Which proxy each request goes through, as the person's tools choose it. */
  readonly proxies: ProxySettings;
  /** How long a proxy may take to open a tunnel (a caller's abort does not reach the CONNECT). */
  readonly tunnelTimeoutMs?: number;
}

/**
 * A fetch for every call Kubecred makes to a server outside (issuers, Keystone, AWS): through the
 * proxy the person's tools use (a CONNECT tunnel for https, as kubectl does), trusting the given
 * roots. Node 20's global fetch honours neither a proxy nor a CA without an undici dispatcher,
 * and undici is not ours to depend on; node:https takes both, scoped to each request.
 */
export function outboundFetch(options: OutboundOptions): OutboundFetch {
  const ca = options.ca ? [...options.ca] : undefined;
  return (url, request) => send(new URL(url), request, ca, options);
}

async function send(
  url: URL,
  options: OutboundRequest,
  ca: string[] | undefined,
  { proxies, tunnelTimeoutMs }: OutboundOptions,
): Promise<Response> {
  const route = await routeForConnection(proxies, url);
  // Plain http through a proxy carries its credentials on each request (https: in the tunnel's CONNECT).
  const storedPassword = route && url.protocol !== 'https:' ? await storedPasswordOf(route) : undefined;
  return new Promise<Response>((resolve, reject) => {
    const body = bodyBytes(options.body);
    const headers: Record<string, string> = { ...options.headers };
    if (body !== undefined) headers['content-length'] = String(body.byteLength);
    const onResponse = (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const status = res.statusCode ?? 502;
        resolve(
          new Response(NULL_BODY_STATUS.has(status) ? null : Buffer.concat(chunks), {
            status,
            statusText: res.statusMessage ?? '',
            headers: responseHeaders(res),
          }),
        );
      });
    };
    const common = { method: options.method ?? 'GET', headers, ...(options.signal ? { signal: options.signal } : {}) };
    // Redirects are not followed: openid-client asks for redirect 'manual' and judges them itself.
    let req;
    if (url.protocol === 'https:') {
      const agent = route ? new ProxyTunnelAgent(route, ca ? { ca } : {}, tunnelTimeoutMs) : undefined;
      req = httpsRequest(url, { ...common, ...(ca ? { ca } : {}), ...(agent ? { agent } : {}) }, onResponse);
    } else if (route) {
      // Plain http through a proxy: the whole URL goes to the proxy, as curl and Go send it.
      req = httpRequest(
        {
          ...common,
          host: route.proxy.hostname,
          port: route.proxy.port || 80,
          path: url.href,
          headers: { ...headers, host: url.host, ...proxyAuthorization(route.proxy, storedPassword) },
        },
        onResponse,
      );
      req.on('error', (error: NodeJS.ErrnoException) =>
        reject(new Error(`through the proxy ${shownProxy(route.proxy)} (from ${route.source}): ${error.message}`)),
      );
    } else req = httpRequest(url, common, onResponse);
    // Whatever failed, the error says how the request went: which proxy, or why none.
    req.on('error', (error: Error) => reject(failedRequest(error, proxies, url, route)));
    req.end(body);
  });
}

function bodyBytes(body: OutboundRequest['body']): Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof URLSearchParams) return Buffer.from(body.toString());
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (body instanceof Uint8Array) return body;
  // openid-client sends forms and JSON, never streams; a stream here is a bug to see, not to guess at.
  throw new TypeError('streamed request bodies are not supported');
}

function responseHeaders(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return headers;
}
