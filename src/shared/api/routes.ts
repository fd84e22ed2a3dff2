/** The broker's HTTP API. One place, so the CLI, the shims and the web UI cannot drift. */
export const ROUTES = {
  credential: '/v1/credential',
  status: '/v1/status',
  profiles: '/v1/profiles',
  secret: (profile: string, field: string) =>
    `/v1/secrets/${encodeURIComponent(profile)}/${encodeURIComponent(field)}`,
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

export const HEADERS = {
  exitCode: 'kubecred-exit-code',
  handover: 'kubecred-handover',
  /** What to ask the user so a retry succeeds: "token-pin <token>", "mfa-code <profile>" or "passphrase". */
  prompt: 'kubecred-prompt',
} as const;

/** Request bodies above this are refused before they are parsed. */
export const MAX_REQUEST_BYTES = 64 * 1024;
