import { createServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { TestPki } from './demoPki.js';

/** Who the stand-in lets in: one bearer token, any client cert from the CA, or bearer tokens a verifier accepts (OIDC ID tokens). */
export type StandInAuth = { bearerToken: string } | { clientCert: true } | { verifyBearer: (token: string) => boolean };

export interface RecordedRequest {
  method: string;
  path: string;
  authorized: boolean;
  userAgent: string | undefined;
}

export interface ApiStandIn {
  url: string;
  caPem: string;
  /** Live array: every request in arrival order, for assertions. Never holds a secret. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export const VERSION_INFO = {
  major: '1',
  minor: '33',
  gitVersion: 'v1.33.0',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2025-04-23T00:00:00Z',
  goVersion: 'go1.24.2',
  compiler: 'gc',
  platform: 'linux/amd64',
} as const;

function status(code: number, reason: string, message: string): object {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

// Plain application/json on purpose: newer clients ask for aggregated discovery
// first and fall back to legacy discovery when the content type says it is not,
// which is what an old apiserver does; the fallback path works for every kubectl.
function routes(serverAddress: string): Map<string, object> {
  return new Map<string, object>([
    ['/version', VERSION_INFO],
    [
      '/api',
      {
        kind: 'APIVersions',
        versions: ['v1'],
        serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
      },
    ],
    ['/apis', { kind: 'APIGroupList', apiVersion: 'v1', groups: [] }],
    // Legacy discovery goes on to /api/v1, and client-go counts an empty list
    // as a failed group ("received empty response for: v1"), so list one
    // resource. Only discovery is faked: GET /api/v1/namespaces is a 404.
    [
      '/api/v1',
      {
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: 'v1',
        resources: [
          {
            name: 'namespaces',
            singularName: 'namespace',
            namespaced: false,
            kind: 'Namespace',
            verbs: ['get', 'list'],
            shortNames: ['ns'],
          },
        ],
      },
    ],
  ]);
}

function isAuthorized(req: IncomingMessage, auth: StandInAuth): boolean {
  if ('bearerToken' in auth) return req.headers.authorization === `Bearer ${auth.bearerToken}`;
  if ('verifyBearer' in auth) {
    const header = req.headers.authorization ?? '';
    return header.startsWith('Bearer ') && auth.verifyBearer(header.slice(7));
  }
  // rejectUnauthorized is off so that a missing or foreign cert reaches us and
  // gets a 401 Status like a real apiserver, instead of a TLS handshake error.
  const socket = req.socket as TLSSocket;
  return socket.authorized && Object.keys(socket.getPeerCertificate()).length > 0;
}

function send(res: ServerResponse, code: number, body: object): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

// Just enough kube-apiserver for `kubectl get --raw /version`, `kubectl version`
// and client-go discovery, with real TLS and real authentication outcomes, so
// tests can drive unmodified kubectl builds against it.
export async function startApiStandIn(opts: { pki: TestPki; auth: StandInAuth }): Promise<ApiStandIn> {
  const { pki, auth } = opts;
  const requests: RecordedRequest[] = [];
  let table = new Map<string, object>();

  const server = createServer(
    {
      key: pki.serverKeyPem,
      cert: pki.serverCertPem,
      ca: pki.caPem,
      requestCert: 'clientCert' in auth,
      rejectUnauthorized: false,
    },
    (req, res) => {
      const path = new URL(req.url ?? '/', 'https://stand-in').pathname;
      const authorized = isAuthorized(req, auth);
      requests.push({ method: req.method ?? '', path, authorized, userAgent: req.headers['user-agent'] });
      req.resume();
      if (!authorized) return send(res, 401, status(401, 'Unauthorized', 'Unauthorized'));
      const body = req.method === 'GET' ? table.get(path) : undefined;
      if (body) return send(res, 200, body);
      send(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
    },
  );

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  table = routes(`127.0.0.1:${port}`);

  return {
    url: `https://127.0.0.1:${port}`,
    caPem: pki.caPem,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        // kubectl keeps connections alive; without this close() waits for their idle timeout.
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
