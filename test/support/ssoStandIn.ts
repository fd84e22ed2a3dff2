import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface RoleKeys {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken: string;
}

/**
 * STAND-IN for IAM Identity Center (moto implements neither SSO-OIDC's device grant nor the
 * portal's GetRoleCredentials): RegisterClient, StartDeviceAuthorization, CreateToken and
 * GetRoleCredentials with AWS's paths, field names and error types. Opening a device's
 * verification page approves it, as a user clicking Allow would.
 */
export interface SsoStandIn {
  readonly url: string;
  /** Device authorizations started, and GetRoleCredentials calls, so far. */
  readonly counts: { authorizations: number; roleCredentials: number };
  /** An access token the aws CLI can find in its cache (it never logs in here). */
  issueToken(): string;
  /** Every access token stops working (the SSO session ended). */
  endSessions(): void;
  /** The keys GetRoleCredentials hands out for account/role, expiring at `expiration` (ms). */
  setRole(accountId: string, roleName: string, keys: RoleKeys, expiration: number): void;
  stop(): Promise<void>;
}

interface Device {
  readonly userCode: string;
  approved: boolean;
}

export async function startSsoStandIn(
  options: {
    intervalSeconds?: number;
    expiresInSeconds?: number;
    /**
     * Serve over TLS, as AWS serves SSO (https, and the device page's URL too): the broker
     * sends plain http to loopback only, so a stand-in reached by a name (through a proxy,
     * say) must speak TLS. Without it, plain http on 127.0.0.1.
     */
    tls?: { readonly certPem: string; readonly keyPem: string };
  } = {},
): Promise<SsoStandIn> {
  const clients = new Map<string, string>();
  const devices = new Map<string, Device>();
  const tokens = new Set<string>();
  const roles = new Map<string, { keys: RoleKeys; expiration: number }>();
  const counts = { authorizations: 0, roleCredentials: 0 };
  const issueToken = () => {
    const token = `aoa${randomBytes(24).toString('base64url')}`;
    tokens.add(token);
    return token;
  };
  const scheme = options.tls ? 'https' : 'http';
  const handle: RequestListener = (request, response) => {
    void readJson(request).then((body) => {
      const send = (status: number, json: unknown, errorType?: string) =>
        response
          .writeHead(status, {
            'content-type': 'application/json',
            ...(errorType
              ? { 'x-amzn-errortype': `${errorType}:http://internal.amazon.com/coral/com.amazonaws.ssooidc/` }
              : {}),
          })
          .end(JSON.stringify(json));
      const url = new URL(request.url ?? '/', 'http://stand-in');
      if (request.method === 'POST' && url.pathname === '/client/register') {
        const clientId = randomBytes(8).toString('hex');
        clients.set(clientId, randomBytes(16).toString('hex'));
        return send(200, {
          clientId,
          clientSecret: clients.get(clientId),
          clientIdIssuedAt: 0,
          clientSecretExpiresAt: 2_000_000_000,
        });
      }
      if (request.method === 'POST' && url.pathname === '/device_authorization') {
        if (clients.get(String(body.clientId)) !== body.clientSecret)
          return send(400, { error: 'invalid_client' }, 'InvalidClientException');
        counts.authorizations += 1;
        const deviceCode = randomBytes(16).toString('hex');
        const userCode = `${randomBytes(2).toString('hex')}-${randomBytes(2).toString('hex')}`.toUpperCase();
        devices.set(deviceCode, { userCode, approved: false });
        const verificationUri = `${scheme}://${request.headers.host}/device`;
        return send(200, {
          deviceCode,
          userCode,
          verificationUri,
          verificationUriComplete: `${verificationUri}?user_code=${userCode}`,
          expiresIn: options.expiresInSeconds ?? 600,
          interval: options.intervalSeconds ?? 1,
        });
      }
      if (request.method === 'GET' && url.pathname === '/device') {
        for (const device of devices.values())
          if (device.userCode === url.searchParams.get('user_code')) device.approved = true;
        return response.writeHead(200, { 'content-type': 'text/plain' }).end('Request approved');
      }
      if (request.method === 'POST' && url.pathname === '/token') {
        const device = devices.get(String(body.deviceCode));
        if (!device) return send(400, { error: 'expired_token' }, 'ExpiredTokenException');
        if (!device.approved) return send(400, { error: 'authorization_pending' }, 'AuthorizationPendingException');
        devices.delete(String(body.deviceCode));
        return send(200, { accessToken: issueToken(), tokenType: 'Bearer', expiresIn: 28_800 });
      }
      if (request.method === 'GET' && url.pathname === '/federation/credentials') {
        counts.roleCredentials += 1;
        if (!tokens.has(String(request.headers['x-amz-sso_bearer_token'])))
          return send(401, { message: 'Session token not found or invalid' }, 'UnauthorizedException');
        const role = roles.get(`${url.searchParams.get('account_id')}/${url.searchParams.get('role_name')}`);
        if (!role) return send(403, { message: 'No access' }, 'ForbiddenException');
        return send(200, { roleCredentials: { ...role.keys, expiration: role.expiration } });
      }
      send(404, { message: `no ${request.method} ${url.pathname}` });
    });
  };
  const server: Server = options.tls
    ? createTlsServer({ cert: options.tls.certPem, key: options.tls.keyPem }, handle)
    : createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    issueToken,
    endSessions: () => tokens.clear(),
    setRole: (accountId, roleName, keys, expiration) =>
      void roles.set(`${accountId}/${roleName}`, { keys, expiration }),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => {
      try {
        resolve(text ? (JSON.parse(text) as Record<string, unknown>) : {});
      } catch {
        resolve({});
      }
    });
  });
}
