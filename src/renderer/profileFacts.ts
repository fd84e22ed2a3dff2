/** One line of a profile's page: a label and what config.yaml says, in a person's words. */
export interface ProfileFact {
  readonly label: string;
  readonly value: string;
  /** Shown as code (a command, a URL, an ARN): copied as is. */
  readonly code?: boolean;
}

const APPROVAL_WORDS: Readonly<Record<string, string>> = {
  never: 'never asks',
  'once-per-process': 'asks once per program',
  always: 'asks every time',
};

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;

/**
 * Whether the exec proxy can be turned on here: any profile that does not go through it yet
 * (with a key on a token the proxy signs with it; otherwise it sends the profile's credential).
 */
export function offersProxy(config: Readonly<Record<string, unknown>>): boolean {
  return config.proxy === undefined || config.proxy === null;
}

/**
 * What a profile's config.yaml entry says that a person checks on its page: the command a
 * plugin runs, the role an EKS profile assumes, the issuer, the exec proxy's port and upstream,
 * whether it asks before handing out a credential. config.yaml holds no secret, so none shows.
 */
export function profileFacts(provider: string, config: Readonly<Record<string, unknown>>): ProfileFact[] {
  const facts: ProfileFact[] = [];
  const add = (label: string, value: string | undefined, code = false) => {
    if (value) facts.push({ label, value, ...(code ? { code } : {}) });
  };
  switch (provider) {
    case 'exec': {
      const args = Array.isArray(config.args) ? config.args.map(String) : [];
      add('Command', [text(config.command), ...args].filter(Boolean).join(' '), true);
      break;
    }
    case 'oidc':
      add('Issuer', text(config.issuer), true);
      add('Client ID', text(config.clientId), true);
      break;
    case 'keystone':
      add('Keystone', text(config.authUrl), true);
      add('Project', text(config.projectName) ?? text(config.projectId));
      break;
    case 'eks':
      add('Cluster', [text(config.clusterId), text(config.region)].filter(Boolean).join(' in '));
      add('Role', text(config.roleArn), true);
      add('AWS profile', text(config.awsProfile));
      break;
  }
  const proxy = config.proxy as Record<string, unknown> | undefined;
  if (proxy && typeof proxy === 'object') {
    const version = text(proxy.tlsVersion);
    add(
      'Exec proxy',
      `kubectl → https://127.0.0.1:${text(proxy.port) ?? '?'} → ${text(proxy.server) ?? '?'}${version ? ` (TLS ${version})` : ''}`,
      true,
    );
  }
  const key = config.tokenCertificate as Record<string, unknown> | undefined;
  if (key && typeof key === 'object')
    add('Key on token', `${text(key.token) ?? '?'}, object "${text(key.label) ?? '?'}"`);
  add('Approval', APPROVAL_WORDS[text(config.approval) ?? 'never']);
  return facts;
}

/**
 * The API servers a profile's contexts reach, as a person knows them: a context that goes
 * through the exec proxy names its local listener, so the cluster behind it is shown instead
 * (the listener has its own line, "Exec proxy").
 */
export function clusterServers(servers: readonly string[], config: Readonly<Record<string, unknown>> | null): string[] {
  const proxy = config?.proxy as Record<string, unknown> | undefined;
  const port = proxy && typeof proxy === 'object' ? text(proxy.port) : undefined;
  const upstream = proxy && typeof proxy === 'object' ? text(proxy.server) : undefined;
  const shown = servers.map((server) => (port && upstream && isListener(server, port) ? upstream : server));
  return [...new Set(shown)];
}

function isListener(server: string, port: string): boolean {
  try {
    const url = new URL(server);
    return ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) && url.port === port;
  } catch {
    return false;
  }
}
