import { writeFile } from 'node:fs/promises';

export type ExecApiVersion = 'client.authentication.k8s.io/v1' | 'client.authentication.k8s.io/v1beta1';
export type InteractiveMode = 'Never' | 'IfAvailable' | 'Always';

export interface ExecKubeconfigOptions {
  path: string;
  server: string;
  caPem: string;
  command: string;
  args?: string[];
  apiVersion: ExecApiVersion;
  env?: Record<string, string>;
  provideClusterInfo?: boolean;
  interactiveMode?: InteractiveMode;
}

export interface TokenKubeconfigOptions {
  path: string;
  server: string;
  caPem: string;
  token: string;
}

const NAME = 'stand-in';

// JSON is valid YAML, so kubectl reads this without the harness needing a YAML
// library; the CA goes inline so the file is self-contained and movable.
function kubeconfig(server: string, caPem: string, user: Record<string, unknown>): string {
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: [
      {
        name: NAME,
        cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') },
      },
    ],
    users: [{ name: NAME, user }],
    contexts: [{ name: NAME, context: { cluster: NAME, user: NAME } }],
    'current-context': NAME,
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

// interactiveMode is always written: kubectl rejects a v1 exec block without it,
// and 'Never' keeps v1beta1 from guessing from a stdin that tests never attach.
export async function writeExecKubeconfig(opts: ExecKubeconfigOptions): Promise<string> {
  const exec: Record<string, unknown> = {
    apiVersion: opts.apiVersion,
    command: opts.command,
    args: opts.args ?? [],
    interactiveMode: opts.interactiveMode ?? 'Never',
  };
  if (opts.env) exec.env = Object.entries(opts.env).map(([name, value]) => ({ name, value }));
  if (opts.provideClusterInfo !== undefined) exec.provideClusterInfo = opts.provideClusterInfo;
  await writeFile(opts.path, kubeconfig(opts.server, opts.caPem, { exec }), { mode: 0o600 });
  return opts.path;
}

// The baseline the benchmark compares exec plugins against: a static token, no plugin.
export async function writeTokenKubeconfig(opts: TokenKubeconfigOptions): Promise<string> {
  await writeFile(opts.path, kubeconfig(opts.server, opts.caPem, { token: opts.token }), { mode: 0o600 });
  return opts.path;
}

const FIXTURES = new URL('../fixtures/kubeconfig/', import.meta.url);

/** Names of the kubeconfig fixtures (test/fixtures/kubeconfig/*.yaml), without the extension. */
export const KUBECONFIG_FIXTURES = [
  'gke',
  'eks',
  'aks',
  'kind',
  'minikube',
  'oidc-legacy',
  'commented',
  'multi-a',
  'multi-b',
] as const;
export type KubeconfigFixture = (typeof KUBECONFIG_FIXTURES)[number];

/** Copies a fixture to `dest` with its {{PLACEHOLDERS}} filled in; an unfilled one is an error, not a silent blank. */
export async function writeKubeconfigFixture(
  name: KubeconfigFixture,
  dest: string,
  vars: Record<string, string>,
): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const template = await readFile(new URL(`${name}.yaml`, FIXTURES), 'utf8');
  const text = template.replace(/\{\{([A-Z_0-9]+)\}\}/g, (_match, key: string) => {
    const value = vars[key];
    if (value === undefined) throw new Error(`fixture ${name}.yaml needs {{${key}}}`);
    return value;
  });
  await writeFile(dest, text, { mode: 0o600 });
  return dest;
}

/**
 * The kubeconfig a user has before Kubecred: one real cluster (server and CA inline) and a
 * context `profile` whose user is still empty, for `kubecred install` to fill in.
 */
export async function writeUninstalledKubeconfig(
  file: string,
  cluster: { readonly server: string; readonly caPem: string },
  profile: string,
): Promise<void> {
  const caData = Buffer.from(cluster.caPem).toString('base64');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'real', cluster: { server: cluster.server, 'certificate-authority-data': caData } }],
    users: [{ name: profile, user: {} }],
    contexts: [{ name: profile, context: { cluster: 'real', user: profile } }],
    'current-context': profile,
  };
  await writeFile(file, JSON.stringify(config), { mode: 0o600 });
}
