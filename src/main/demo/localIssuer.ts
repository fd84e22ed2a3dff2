import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createTestPki } from './demoPki.js';

/**
 * A real OIDC issuer for the demo and the tests: oidc-provider in this process, on https://127.0.0.1:<random>
 * with a throw-away CA (so the profile's caFile is exercised), its built-in login and consent
 * pages (devInteractions: any login name works), the device flow, refresh tokens and revocation.
 */
export interface TestIssuer {
  readonly issuer: string;
  readonly clientId: string;
  /** The CA that signs the issuer's certificate, for the profile's caFile. */
  readonly caFile: string;
  readonly caPem: string;
  /** What reached the issuer since start (or the last reset). */
  readonly counts: IssuerCounts;
  resetCounts(): void;
  /** Revokes every refresh token issued so far, as an admin or an expiry would; how many. */
  revokeAllRefreshTokens(): Promise<number>;
  /** Whether the issuer would still honour this refresh token. */
  isRefreshTokenActive(token: string): Promise<boolean>;
  /**
   * Answers a refresh token it turns down with this OAuth error instead of invalid_grant, as
   * some issuers do (Dex answers invalid_request); undefined goes back to invalid_grant.
   */
  refuseRefreshTokensWith(error: string | undefined): void;
  /** A restart with no memory (the in-memory store): same URL and keys, every token and session forgotten. */
  restartWithoutMemory(): void;
  stop(): Promise<void>;
}

export interface IssuerCounts {
  /** Authorization requests (GET or POST /auth): one per browser login started. */
  authorizations: number;
  deviceAuthorizations: number;
  /** Successful token requests by grant_type. */
  grants: Record<string, number>;
  revocations: number;
}

export const TEST_CLIENT_ID = 'kubernetes';
export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

// oidc-provider ships no type declarations; this is the part of it the tests use.
interface KoaContext {
  readonly method: string;
  readonly path: string;
  body: unknown;
  readonly oidc?: { readonly params?: Record<string, unknown> };
}
interface StoredToken {
  readonly isExpired: boolean;
  readonly consumed?: unknown;
  destroy(): Promise<void>;
}
interface OidcProviderInstance {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void;
  on(event: string, listener: (...args: never[]) => void): void;
  readonly RefreshToken: { find(value: string, options?: Record<string, unknown>): Promise<StoredToken | undefined> };
}
type OidcProviderClass = new (issuer: string, configuration: Record<string, unknown>) => OidcProviderInstance;

// A variable specifier keeps TypeScript from demanding the declarations the package lacks.
const OIDC_PROVIDER = 'oidc-provider';

export async function startTestIssuer(options: {
  dir: string;
  idTokenTtlSeconds?: number;
  deviceInterval?: number;
  /**
   * The name in the issuer URL (127.0.0.1 unless given): a name only a proxy resolves makes
   * every client reach the issuer through that proxy, or not at all.
   */
  hostname?: string;
}): Promise<TestIssuer> {
  const { default: Provider } = (await import(OIDC_PROVIDER)) as { default: OidcProviderClass };
  const pki = await createTestPki(options.dir, options.hostname ? [options.hostname] : []);
  // The issuer URL needs the port, and the provider needs the issuer URL: listen first, route requests after.
  const server = createServer({ key: pki.serverKeyPem, cert: pki.serverCertPem });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `https://${options.hostname ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;

  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const counts: IssuerCounts = { authorizations: 0, deviceAuthorizations: 0, grants: {}, revocations: 0 };
  const refreshTokens = new Set<string>();
  let refusalError: string | undefined;
  const start = () => {
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: TEST_CLIENT_ID,
          client_name: 'Kubernetes (Kubecred test)',
          // Native + loopback: any port on 127.0.0.1 matches (RFC 8252 7.3).
          application_type: 'native',
          token_endpoint_auth_method: 'none',
          redirect_uris: ['http://127.0.0.1/callback'],
          response_types: ['code'],
          grant_types: ['authorization_code', 'refresh_token', DEVICE_GRANT],
        },
      ],
      jwks: { keys: [{ ...signingKey, kid: 'test', alg: 'RS256', use: 'sig' }] },
      cookies: { keys: [randomBytes(16).toString('hex')] },
      features: {
        devInteractions: { enabled: true },
        deviceFlow: { enabled: true },
        revocation: { enabled: true },
      },
      scopes: ['openid', 'offline_access', 'email', 'profile'],
      // groups rides on openid, as corporate IdPs put it in every ID token the API server reads.
      claims: { openid: ['sub', 'groups'], email: ['email', 'email_verified'], profile: ['name'] },
      // Put the scope's claims into the ID token, as Kubernetes issuers are configured to.
      conformIdTokenClaims: false,
      findAccount: async (_ctx: unknown, sub: string) => ({
        accountId: sub,
        claims: async () => ({
          sub,
          name: sub,
          email: `${sub}@example.test`,
          email_verified: true,
          groups: ['kubecred-users', `team-${sub}`],
        }),
      }),
      ttl: {
        IdToken: options.idTokenTtlSeconds ?? 3600,
        AccessToken: 3600,
        AuthorizationCode: 60,
        DeviceCode: 600,
        RefreshToken: 86_400,
        Grant: 86_400,
        Session: 86_400,
        Interaction: 3600,
      },
    });

    provider.use(async (ctx, next) => {
      if (ctx.path === '/auth') counts.authorizations += 1;
      if (ctx.path === '/token/revocation') counts.revocations += 1;
      await next();
      const answer = ctx.body as { error?: unknown } | undefined;
      if (refusalError && ctx.path === '/token' && answer?.error === 'invalid_grant') answer.error = refusalError;
      if (ctx.path === '/device/auth' && ctx.body && typeof ctx.body === 'object') {
        counts.deviceAuthorizations += 1;
        // oidc-provider sends no interval, which means 5 s; a short one keeps the test quick.
        (ctx.body as Record<string, unknown>).interval = options.deviceInterval ?? 1;
      }
    });
    provider.on('grant.success', (ctx: KoaContext) => {
      const type = String(ctx.oidc?.params?.grant_type ?? 'unknown');
      counts.grants[type] = (counts.grants[type] ?? 0) + 1;
    });
    provider.on('refresh_token.saved', (token: { jti: string }) => refreshTokens.add(token.jti));
    provider.on('server_error', (_ctx: unknown, error: Error) => console.error('test issuer server_error', error));
    return { provider, handle: provider.callback() };
  };
  let current = start();
  server.on('request', (request, response) => current.handle(request, response));

  return {
    issuer,
    clientId: TEST_CLIENT_ID,
    caFile: pki.caCertPath,
    caPem: pki.caPem,
    counts,
    resetCounts: () => {
      Object.assign(counts, { authorizations: 0, deviceAuthorizations: 0, grants: {}, revocations: 0 });
    },
    revokeAllRefreshTokens: async () => {
      let revoked = 0;
      for (const jti of refreshTokens) {
        const token = await current.provider.RefreshToken.find(jti, { ignoreExpiration: true });
        if (token) {
          await token.destroy();
          revoked += 1;
        }
      }
      refreshTokens.clear();
      return revoked;
    },
    isRefreshTokenActive: async (value) => {
      const token = await current.provider.RefreshToken.find(value);
      return token !== undefined && !token.isExpired && !token.consumed;
    },
    refuseRefreshTokensWith: (error) => (refusalError = error),
    restartWithoutMemory: () => {
      refreshTokens.clear();
      current = start();
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
