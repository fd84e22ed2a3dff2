import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import type { Duplex } from 'node:stream';
import { Agent as HttpsAgent, request as httpsRequest, type AgentOptions } from 'node:https';
import { isIP, type Socket } from 'node:net';
import { NETWORK_MEANING } from './networkWords.js';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';

/**
 * A failure on the way through a proxy, in words that name it: which proxy (never its
 * password), where its address came from, what it answered, and what to change.
 */
export class ProxyRouteError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = 'ProxyRouteError';
  }
}

/** The Basic credentials of the proxy's URL, as the header that goes to the proxy only; none without. */
export function proxyAuthorization(proxy: URL): { 'proxy-authorization'?: string } {
  if (!proxy.username && !proxy.password) return {};
  const pair = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return { 'proxy-authorization': `Basic ${Buffer.from(pair).toString('base64')}` };
}

/** A proxy as it may be shown: its scheme, host and port, never its user or password. */
export function shownProxy(proxy: URL): string {
  return `${proxy.protocol}//${proxy.host}`;
}

/** Where a proxy's address came from, for the words of an error ("HTTPS_PROXY"). */
export interface ProxyRoute {
  readonly proxy: URL;
  readonly source: string;
}

/**
 * An https.Agent whose connections go through an HTTP proxy's CONNECT tunnel, as kubectl's do:
 * the proxy sees only the host and port, TLS runs end to end inside the tunnel against the
 * caller's trust (the proxy cannot read or change the exchange unless it inspects TLS with a
 * root the caller trusts). The proxy's credentials, from its URL, go only to the proxy.
 */
export class ProxyTunnelAgent extends HttpsAgent {
  constructor(
    private readonly route: ProxyRoute,
    options: AgentOptions = {},
    /** How long the proxy may take to open the tunnel. */
    private readonly tunnelTimeoutMs = 30_000,
  ) {
    super({ ...options, keepAlive: false });
  }

  override createConnection(
    requested: RequestOptions,
    done?: (error: Error | null, stream: Duplex) => void,
  ): undefined {
    const options = requested as ConnectionOptions & RequestOptions;
    const host = options.hostname ?? options.host ?? 'localhost';
    const port = Number(options.port ?? 443);
    openTunnel(this.route, host, port, this.tunnelTimeoutMs).then(
      (socket) => {
        // No SNI for an address: TLS names hosts only.
        const name = options.servername ?? (isIP(hostName(host)) ? undefined : hostName(host));
        done?.(null, tlsConnect({ ...options, socket, ...(name ? { servername: name } : {}) }));
      },
      (error: Error) => done?.(error, undefined as unknown as Duplex),
    );
    return undefined;
  }
}

/**
 * A TCP stream to host:port through the proxy (CONNECT), once the proxy said 2xx. `timeoutMs`:
 * how long the proxy may take to answer (doctor's probes wait less than a login does).
 */
export function openTunnel(route: ProxyRoute, host: string, port: number, timeoutMs = 30_000): Promise<Socket> {
  const { proxy, source } = route;
  const target = `${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
  const headers: Record<string, string> = { host: target, ...proxyAuthorization(proxy) };
  const send = proxy.protocol === 'https:' ? httpsRequest : httpRequest;
  const where = `the proxy ${shownProxy(proxy)} (from ${source})`;
  return new Promise((resolve, reject) => {
    const connect = send({
      host: proxy.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: proxy.port || (proxy.protocol === 'https:' ? 443 : 80),
      method: 'CONNECT',
      path: target,
      headers,
      agent: false,
      timeout: timeoutMs,
    });
    connect.once('connect', (answer: IncomingMessage, socket: Socket) => {
      const status = answer.statusCode ?? 0;
      if (status >= 200 && status < 300) return resolve(socket);
      socket.destroy();
      reject(refused(where, target, { status, text: answer.statusMessage ?? '' }, route));
    });
    connect.once('timeout', () => connect.destroy(new Error(`no answer in ${Math.round(timeoutMs / 100) / 10} s`)));
    connect.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new ProxyRouteError(
          `cannot reach ${where}: ${error.code ?? error.message}${NETWORK_MEANING[error.code ?? ''] ? ` (${NETWORK_MEANING[error.code ?? '']})` : ''}`,
          `check ${source}: is the proxy's address right, and does it run? (unset it if this network needs none)`,
        ),
      ),
    );
    connect.end();
  });
}

function refused(
  where: string,
  target: string,
  answer: { status: number; text: string },
  { proxy, source }: ProxyRoute,
): ProxyRouteError {
  const { status, text } = answer;
  const answered = `${where} answered ${status}${text ? ` ${text}` : ''} to CONNECT ${target}`;
  const sentCredentials = Boolean(proxy.username || proxy.password);
  // Squid answers a wrong password with 407 again; tinyproxy with 401.
  if (sentCredentials && (status === 407 || status === 401))
    return new ProxyRouteError(
      `${answered}: it does not take the user and password given`,
      `check the user and password in ${source} (http://user:password@host:port, the password URL-encoded)`,
    );
  if (status === 407)
    return new ProxyRouteError(
      `${answered}: it wants a user and password`,
      `put them in ${source} as http://user:password@host:port (the password URL-encoded)`,
    );
  return new ProxyRouteError(
    `${answered}: it does not let this connection through`,
    `ask whoever runs the proxy to allow ${target}, or add the host to NO_PROXY if it is reachable without the proxy`,
  );
}

function hostName(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1');
}
