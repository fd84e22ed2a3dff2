import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import type { Duplex } from 'node:stream';
import { Agent as HttpsAgent, request as httpsRequest, type AgentOptions } from 'node:https';
import { isIP, type Socket } from 'node:net';
import { socketErrorWords, UNKNOWN_ROOT_CODES } from './networkWords.js';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';

/** How a profile's proxy password is kept, where the route does not say it with the profile's name. */
const PROXY_PASSWORD_COMMAND = 'kubecred secret set <profile> proxy-password';

/**
 * A failure on the way through a proxy, in words that name it: which proxy (never its
 * password), where its address came from, what it answered, and what to change.
 */
export class ProxyRouteError extends Error {
  constructor(
    message: string,
    readonly hint: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'ProxyRouteError';
  }
}

/**
 * What a TLS failure inside the proxy's tunnel means, when the server's chain ends at a root this
 * machine does not trust: behind a proxy the usual cause is a proxy that inspects TLS, re-signing
 * every site with its own root, which the person's other tools trust from the OS store. Said with
 * the proxy and where to put its root; any other failure is returned as it came.
 */
export function tunnelTrustError(error: unknown, route: ProxyRoute, target: URL): unknown {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string' || !UNKNOWN_ROOT_CODES.has(code)) return error;
  return new ProxyRouteError(
    `through the proxy ${shownProxy(route.proxy)} (from ${route.source}), ${target.host} showed a certificate signed by a root this machine does not trust (${code})`,
    `a TLS-inspecting proxy re-signs the sites it passes with its own root: add that root to the OS trust store (where kubectl, curl and the browser find it) or put it in the profile's caFile; or ask whoever runs the proxy to pass ${target.hostname} uninspected`,
    { cause: error },
  );
}

/**
 * The Basic credentials for the proxy, as the header that goes to the proxy only: its URL's user
 * and password, the password from the keychain where the URL has none; no header without either.
 */
export function proxyAuthorization(proxy: URL, storedPassword?: string): { 'proxy-authorization'?: string } {
  const password = proxy.password ? decodeURIComponent(proxy.password) : (storedPassword ?? '');
  if (!proxy.username && !password) return {};
  const pair = `${decodeURIComponent(proxy.username)}:${password}`;
  return { 'proxy-authorization': `Basic ${Buffer.from(pair).toString('base64')}` };
}

/** The route's password from the keychain, when its URL names a user without one. */
export async function storedPasswordOf(route: ProxyRoute): Promise<string | undefined> {
  if (route.proxy.password || !route.proxy.username || !route.storedPassword) return undefined;
  return route.storedPassword.read();
}

/** A proxy as it may be shown: its scheme, host and port, never its user or password. */
export function shownProxy(proxy: URL): string {
  return `${proxy.protocol}//${proxy.host}`;
}

/** Where a proxy's address came from, for the words of an error ("HTTPS_PROXY"). */
export interface ProxyRoute {
  readonly proxy: URL;
  readonly source: string;
  /**
   * The proxy's password where its URL names a user and no password: kept in the keychain, read
   * only when a tunnel is opened, so it is never in a URL, an environment or a log.
   */
  readonly storedPassword?: { readonly read: () => Promise<string | undefined>; readonly setting: string };
  /**
   * A profile's own proxy (its proxyUrl): NO_PROXY does not apply to it, and config.yaml keeps
   * no password in it, so an error never says to put one there.
   */
  readonly profiles?: boolean;
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
export async function openTunnel(route: ProxyRoute, host: string, port: number, timeoutMs = 30_000): Promise<Socket> {
  const { proxy, source } = route;
  const target = `${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
  const storedPassword = await storedPasswordOf(route);
  const headers: Record<string, string> = { host: target, ...proxyAuthorization(proxy, storedPassword) };
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
      reject(
        refused(where, target, status, answer.statusMessage ?? '', {
          source,
          sentCredentials: Boolean(proxy.username || proxy.password || storedPassword),
          passwordSetting: proxy.username && !proxy.password ? route.storedPassword?.setting : undefined,
          keptPassword: storedPassword !== undefined,
          profileProxySetting: route.profiles ? (route.storedPassword?.setting ?? PROXY_PASSWORD_COMMAND) : undefined,
        }),
      );
    });
    connect.once('timeout', () => connect.destroy(new Error(`no answer in ${Math.round(timeoutMs / 100) / 10} s`)));
    connect.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new ProxyRouteError(
          `cannot reach ${where}: ${socketErrorWords(error)}`,
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
  status: number,
  statusText: string,
  how: {
    source: string;
    sentCredentials: boolean;
    passwordSetting: string | undefined;
    keptPassword: boolean;
    /** For a profile's own proxy: the command that keeps its password. */
    profileProxySetting: string | undefined;
  },
): ProxyRouteError {
  const { source, sentCredentials, passwordSetting, keptPassword, profileProxySetting } = how;
  const answered = `${where} answered ${status}${statusText ? ` ${statusText}` : ''} to CONNECT ${target}`;
  // A user in the URL and no password in it: the password is the keychain's to keep.
  if (passwordSetting && (status === 407 || status === 401))
    return new ProxyRouteError(
      `${answered}: ${keptPassword ? `it refused the user in ${source} with the password kept for it` : `it wants the password of the user in ${source}`}`,
      `keep the proxy's password in the keychain: ${passwordSetting}`,
    );
  // Squid answers a wrong password with 407 again; tinyproxy with 401.
  if (sentCredentials && (status === 407 || status === 401))
    return new ProxyRouteError(
      `${answered}: it refused the user and password in ${source}`,
      `check them there (http://user:password@host:port, the password URL-encoded)`,
    );
  // config.yaml keeps no password: the user goes in the profile's URL, the password in the keychain.
  if (status === 407 && profileProxySetting)
    return new ProxyRouteError(
      `${answered}: it wants a user and password`,
      `name the user in ${source} (http://user@host:port) and keep the password with ${profileProxySetting}`,
    );
  if (status === 407)
    return new ProxyRouteError(
      `${answered}: it wants a user and password`,
      `put them in ${source} as http://user:password@host:port (the password URL-encoded)`,
    );
  return new ProxyRouteError(
    `${answered}: it does not let this connection through`,
    profileProxySetting
      ? `ask whoever runs the proxy to allow ${target}, or take proxyUrl out of the profile if the host is reachable without the proxy`
      : `ask whoever runs the proxy to allow ${target}, or add the host to NO_PROXY if it is reachable without the proxy`,
  );
}

function hostName(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1');
}
