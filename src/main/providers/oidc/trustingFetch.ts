import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { rootCertificates } from 'node:tls';
import type { CustomFetch, CustomFetchOptions } from 'openid-client';

const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);

/**
 * A fetch for openid-client that trusts the profile's CA bundle on top of the system roots.
 * Node 20's global fetch takes a CA only through an undici dispatcher, and undici is not ours to
 * depend on; node:https takes `ca` directly, and the bundle stays scoped to this one issuer.
 */
export function trustingFetch(caPem: string): CustomFetch {
  const ca = [...rootCertificates, caPem];
  return (url, options) => send(new URL(url), options, ca);
}

function send(url: URL, options: CustomFetchOptions, ca: string[]): Promise<Response> {
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
    const common = { method: options.method, headers, signal: options.signal };
    // Redirects are not followed: openid-client asks for redirect 'manual' and judges them itself.
    const req =
      url.protocol === 'https:'
        ? httpsRequest(url, { ...common, ca }, onResponse)
        : httpRequest(url, common, onResponse);
    req.on('error', reject);
    req.end(body);
  });
}

function bodyBytes(body: CustomFetchOptions['body']): Uint8Array | undefined {
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
