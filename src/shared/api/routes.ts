const enc = encodeURIComponent;

/** The broker's HTTP API. One place, so the CLI, the shims and the web UI cannot drift. */
export const ROUTES = {
  credential: '/v1/credential',
  status: '/v1/status',
  profiles: '/v1/profiles',
  secret: (profile: string, field: string) => `/v1/secrets/${enc(profile)}/${enc(field)}`,
  /** GET: the profile's store and the names of its secrets (never values). */
  secrets: (profile: string) => `/v1/secrets/${enc(profile)}`,
  /** POST: log in, log out, a new credential, (eks) an MFA code or (keystone) a secret typed in a terminal. */
  profileAction: (profile: string, action: 'login' | 'logout' | 'refresh' | 'mfa' | 'login-secret') =>
    `/v1/profiles/${enc(profile)}/${action}`,
  tokens: '/v1/tokens',
  tokenAction: (token: string, action: 'login' | 'logout') => `/v1/tokens/${enc(token)}/${action}`,
  unlock: '/v1/unlock',
  lock: '/v1/lock',
  stop: '/v1/stop',
  /** POST: a one-time link to the web UI. */
  webUiLink: '/v1/webui/link',
  /** POST, by `kubecred import --undo`: the live refresh tokens go back into the users it restored. */
  importLiveRefreshTokens: '/v1/import/live-refresh-tokens',
  /** GET: the local CA of kubecred-proxy's listeners (a certificate, public). */
  proxyCa: '/v1/proxy/ca',
  /** GET: whether kubecred-proxy runs, its listeners, goroutines and open files. */
  proxyStatus: '/v1/proxy/status',
  /** Image registry credentials: the kubelet's credential provider and docker's credential helper. */
  registry: {
    credentialProvider: '/v1/registry/credential-provider',
    dockerGet: '/v1/registry/docker/get',
    dockerStore: '/v1/registry/docker/store',
    dockerErase: '/v1/registry/docker/erase',
    dockerList: '/v1/registry/docker/list',
  },
} as const;

/** How the broker matches the routes that take names, beside their builders above (routes.test.ts checks each pair). */
export const ROUTE_PATTERNS = {
  secret: /^\/v1\/secrets\/([^/]+)\/([^/]+)$/,
  secrets: /^\/v1\/secrets\/([^/]+)$/,
  profileAction: /^\/v1\/profiles\/([^/]+)\/(login|logout|refresh)$/,
  profileMfa: /^\/v1\/profiles\/([^/]+)\/mfa$/,
  profileLoginSecret: /^\/v1\/profiles\/([^/]+)\/login-secret$/,
  tokenAction: /^\/v1\/tokens\/([^/]+)\/(login|logout)$/,
} as const;

export const HEADERS = {
  exitCode: 'kubecred-exit-code',
  handover: 'kubecred-handover',
  /** What to ask the user so a retry succeeds: "token-pin <token>", "mfa-code <profile>", "login-secret <profile>" or "passphrase". */
  prompt: 'kubecred-prompt',
} as const;

/** Request bodies above this are refused before they are parsed. */
export const MAX_REQUEST_BYTES = 64 * 1024;
