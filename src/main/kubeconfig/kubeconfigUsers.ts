import { LineCounter } from 'yaml';
import { parseKubeconfigYaml } from './kubeconfigDocument.js';
import { AUTH_PROVIDER_SECRET_FIELDS, INLINE_SECRET_FIELDS } from './userFields.js';

export interface KubeconfigUser {
  readonly name: string;
  /** The user's exec block as written, when it has one. */
  readonly exec?: Readonly<Record<string, unknown>>;
  /** Which of INLINE_SECRET_FIELDS the user sets (and auth-provider); the values themselves are never kept. */
  readonly plaintextFields: readonly string[];
}

/** A context by its name, and the user and cluster it names. */
export interface KubeconfigContext {
  readonly name: string;
  readonly user: string | undefined;
  readonly cluster?: string;
}

/** A cluster by its name, its API server's URL, and how kubectl trusts it (none of it secret). */
export interface KubeconfigCluster {
  readonly name: string;
  readonly server: string | undefined;
  /** certificate-authority, as written (a path, relative to the kubeconfig's folder). */
  readonly certificateAuthority?: string;
  /** certificate-authority-data, as written (base64 PEM). */
  readonly certificateAuthorityData?: string;
  readonly tlsServerName?: string;
}

/** One kubeconfig file as read only to look (doctor, contexts): missing, broken, or its users and contexts. */
export type KubeconfigReading =
  | { readonly file: string; readonly state: 'missing' }
  | { readonly file: string; readonly state: 'broken'; readonly error: string }
  | {
      readonly file: string;
      readonly state: 'read';
      readonly mode: number;
      readonly users: readonly KubeconfigUser[];
      readonly contexts: readonly KubeconfigContext[];
      readonly clusters?: readonly KubeconfigCluster[];
    };

export interface KubeconfigIo {
  /** The file's text and permission bits; undefined when it does not exist. */
  read(file: string): Promise<{ text: string; mode: number } | undefined>;
}

/** Reads each file kubectl would read, only to look: nothing here writes a kubeconfig. */
export async function readKubeconfigs(files: readonly string[], io: KubeconfigIo): Promise<KubeconfigReading[]> {
  return Promise.all(
    files.map(async (file): Promise<KubeconfigReading> => {
      let content: { text: string; mode: number } | undefined;
      try {
        content = await io.read(file);
      } catch (error) {
        return { file, state: 'broken', error: `cannot read it: ${(error as Error).message}` };
      }
      if (!content) return { file, state: 'missing' };
      const parsed = parseKubeconfigUsers(content.text);
      return 'error' in parsed
        ? { file, state: 'broken', error: parsed.error }
        : {
            file,
            state: 'read',
            mode: content.mode,
            users: parsed.users,
            contexts: parsed.contexts,
            clusters: parsed.clusters,
          };
    }),
  );
}

export function parseKubeconfigUsers(
  text: string,
): { users: KubeconfigUser[]; contexts: KubeconfigContext[]; clusters: KubeconfigCluster[] } | { error: string } {
  // Errors are given by line and code only: YAML's messages can quote the text, which may be a token.
  const lineCounter = new LineCounter();
  const doc = parseKubeconfigYaml(text, lineCounter);
  const [yamlError] = doc.errors;
  if (yamlError)
    return { error: `not valid YAML at line ${lineCounter.linePos(yamlError.pos[0]).line} (${yamlError.code})` };
  const root: unknown = doc.toJS();
  const users = isRecord(root) && Array.isArray(root.users) ? root.users : [];
  const contexts = isRecord(root) && Array.isArray(root.contexts) ? root.contexts : [];
  const clusters = isRecord(root) && Array.isArray(root.clusters) ? root.clusters : [];
  return {
    users: users.filter(isRecord).map(userOf),
    contexts: contexts.filter(isRecord).map(contextOf),
    clusters: clusters.filter(isRecord).map(clusterOf),
  };
}

function contextOf(entry: Readonly<Record<string, unknown>>): KubeconfigContext {
  const context = isRecord(entry.context) ? entry.context : {};
  return {
    name: typeof entry.name === 'string' ? entry.name : '(unnamed)',
    user: typeof context.user === 'string' ? context.user : undefined,
    ...(typeof context.cluster === 'string' ? { cluster: context.cluster } : {}),
  };
}

function clusterOf(entry: Readonly<Record<string, unknown>>): KubeconfigCluster {
  const cluster = isRecord(entry.cluster) ? entry.cluster : {};
  return {
    name: typeof entry.name === 'string' ? entry.name : '(unnamed)',
    server: typeof cluster.server === 'string' ? cluster.server : undefined,
    ...(typeof cluster['certificate-authority'] === 'string'
      ? { certificateAuthority: cluster['certificate-authority'] }
      : {}),
    ...(typeof cluster['certificate-authority-data'] === 'string'
      ? { certificateAuthorityData: cluster['certificate-authority-data'] }
      : {}),
    ...(typeof cluster['tls-server-name'] === 'string' ? { tlsServerName: cluster['tls-server-name'] } : {}),
  };
}

function userOf(entry: Readonly<Record<string, unknown>>): KubeconfigUser {
  const user = isRecord(entry.user) ? entry.user : {};
  return {
    name: typeof entry.name === 'string' ? entry.name : '(unnamed)',
    ...(isRecord(user.exec) ? { exec: user.exec } : {}),
    plaintextFields: [
      ...INLINE_SECRET_FIELDS.filter((field) => isFilled(user[field])),
      ...(holdsAuthProviderSecret(user) ? ['auth-provider'] : []),
    ],
  };
}

function holdsAuthProviderSecret(user: Readonly<Record<string, unknown>>): boolean {
  const provider = user['auth-provider'];
  const config = isRecord(provider) && isRecord(provider.config) ? provider.config : {};
  return AUTH_PROVIDER_SECRET_FIELDS.some((key) => isFilled(config[key]));
}

function isFilled(value: unknown): boolean {
  return typeof value === 'string' && value !== '';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
