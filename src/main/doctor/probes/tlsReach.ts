import { readFile } from 'node:fs/promises';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { socketErrorWords } from '../../platform/networkWords.js';
import { openTunnel, ProxyRouteError, type ProxyRoute } from '../../platform/proxyTunnel.js';
import { secondsText } from '../seconds.js';

/** What a TLS handshake with a server, through the proxy a login would use, came to. */
export type TlsReach =
  /** The server's certificate chains to a trusted root; `signedBy`: the issuer of its certificate. */
  | { readonly kind: 'verified'; readonly signedBy: string }
  /** The proxy was not reached, or would not open the tunnel: its words, and what to change. */
  | { readonly kind: 'proxy'; readonly message: string; readonly hint: string }
  /** The certificate chains to no root this machine trusts (the TLS code, and who signed it). */
  | { readonly kind: 'untrusted'; readonly code: string; readonly signedBy: string | undefined }
  /** Anything else: the server unreachable, a name mismatch, no answer in time. */
  | { readonly kind: 'failed'; readonly message: string };

export interface TlsTarget {
  readonly url: URL;
  readonly caFile?: string;
  readonly tlsServerName?: string;
}

/** The verification codes that mean "signed by a root not in the trust store". */
const UNKNOWN_ROOT = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
]);

/**
 * Opens a connection to the server as a login would (a CONNECT tunnel through `route`, or
 * direct), and a TLS handshake trusting the system's roots and the profile's caFile. Nothing is
 * sent over it: the handshake is the answer. Gives up after `timeoutMs`, socket and all.
 */
export async function tlsReach(
  target: TlsTarget,
  route: ProxyRoute | undefined,
  roots: readonly string[],
  timeoutMs: number,
): Promise<TlsReach> {
  const ca = target.caFile ? [...roots, await readFile(target.caFile, 'utf8')] : [...roots];
  const host = target.url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(target.url.port || 443);
  const sockets: Socket[] = [];
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<TlsReach>((resolve) => {
    timer = setTimeout(
      () => resolve({ kind: 'failed', message: `no answer within ${secondsText(timeoutMs)}` }),
      timeoutMs,
    );
  });
  const attempt = (async (): Promise<TlsReach> => {
    let socket: Socket;
    try {
      socket = route ? await openTunnel(route, host, port, timeoutMs) : await connected(host, port);
    } catch (error) {
      if (error instanceof ProxyRouteError) return { kind: 'proxy', message: error.message, hint: error.hint };
      return { kind: 'failed', message: socketErrorWords(error as NodeJS.ErrnoException) };
    }
    sockets.push(socket);
    const servername = target.tlsServerName ?? (isIP(host) ? undefined : host);
    // Verified below, not refused at once: an untrusted chain still says who signed it, and nothing is ever sent.
    const secured = tlsConnect({ socket, ca, rejectUnauthorized: false, ...(servername ? { servername } : {}) });
    sockets.push(secured);
    return handshake(secured);
  })();
  try {
    return await Promise.race([attempt, deadline]);
  } finally {
    clearTimeout(timer);
    // The TLS socket first: destroying the tunnel under a live TLS socket crashed Node 20 at exit (SIGSEGV).
    for (const socket of sockets.reverse()) socket.destroy();
  }
}

function connected(host: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host, port });
    socket.once('connect', () => resolve(socket));
    socket.once('error', (error) => {
      socket.destroy();
      reject(error);
    });
  });
}

function handshake(secured: TLSSocket): Promise<TlsReach> {
  return new Promise((resolve) => {
    secured.once('secureConnect', () => {
      const signedBy = issuerName(secured);
      if (secured.authorized) return resolve({ kind: 'verified', signedBy: signedBy ?? 'an unnamed issuer' });
      const code = String(secured.authorizationError ?? 'not verified');
      if (UNKNOWN_ROOT.has(code)) return resolve({ kind: 'untrusted', code, signedBy });
      if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
        return resolve({
          kind: 'failed',
          message: `its certificate does not name ${secured.servername || 'this host'} (${code})`,
        });
      resolve({ kind: 'failed', message: `its certificate is not accepted (${code})` });
    });
    secured.once('error', (error: NodeJS.ErrnoException) =>
      resolve({
        kind: 'failed',
        message: `TLS handshake failed: ${error.message}${error.code ? ` (${error.code})` : ''}`,
      }),
    );
  });
}

/** The issuer of the server's certificate, as its CN (else O): "Corp Issuing CA". */
function issuerName(secured: TLSSocket): string | undefined {
  const issuer = secured.getPeerCertificate()?.issuer as Record<string, string | string[] | undefined> | undefined;
  const name = issuer?.CN ?? issuer?.O;
  return Array.isArray(name) ? name[0] : name;
}
