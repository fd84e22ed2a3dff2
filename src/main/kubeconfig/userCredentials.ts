import { isMap, type Document, type YAMLMap } from 'yaml';
import { kubecredProfileOf } from './kubecredExec.js';
import { STATIC_CREDENTIAL_SOURCES } from './userFields.js';

/** A secret as the kubeconfig holds it: inline (base64 for *-data keys) or in a file it names. */
export interface SecretSource {
  /** The field of the profile's secret store it goes to. */
  readonly field: string;
  /** The user key that holds it, e.g. token, client-key-data, auth-provider.config.refresh-token. */
  readonly key: string;
  readonly inline?: string;
  readonly base64?: boolean;
  /** A path as written in the kubeconfig (relative paths are relative to that file). */
  readonly path?: string;
}

/** What a kubeconfig user authenticates with, and so what `kubecred import` does with it. */
export type UserCredential =
  | { readonly kind: 'kubecred'; readonly profile: string }
  | { readonly kind: 'static'; readonly secrets: readonly SecretSource[] }
  | {
      readonly kind: 'oidc';
      readonly settings: Readonly<Record<string, string>>;
      readonly secrets: readonly SecretSource[];
    }
  | { readonly kind: 'exec'; readonly exec: Readonly<Record<string, unknown>> }
  | { readonly kind: 'left'; readonly reason: string; readonly holdsCredentials: boolean };

/**
 * The exec block as plain values. kubectl resolves YAML aliases (`args: *common`), so import
 * does too, with the document; a handful of aliases is plenty, so an alias bomb is refused.
 */
function plainExec(exec: YAMLMap, doc: Document | undefined): Record<string, unknown> {
  return (doc ? exec.toJS(doc, { maxAliasCount: 50 }) : exec.toJSON()) as Record<string, unknown>;
}

export function classifyUser(user: YAMLMap | undefined, doc?: Document): UserCredential {
  if (!user) return { kind: 'left', reason: 'it has no credentials', holdsCredentials: false };
  const exec = user.get('exec', true);
  let plain: Record<string, unknown> | undefined;
  try {
    plain = isMap(exec) ? plainExec(exec, doc) : undefined;
  } catch {
    return {
      kind: 'left',
      reason: 'its exec block expands into too many YAML aliases; write it out plainly and import again',
      holdsCredentials: false,
    };
  }
  const profile = kubecredProfileOf(plain);
  if (profile !== undefined) return { kind: 'kubecred', profile };
  if (user.has('username') || user.has('password')) {
    return {
      kind: 'left',
      reason:
        'it uses basic auth (username and password), which exec plugins cannot supply and Kubernetes removed in 1.19; it was left as it is',
      holdsCredentials: true,
    };
  }
  if (plain) return { kind: 'exec', exec: plain };
  const provider = user.get('auth-provider', true);
  if (isMap(provider)) return classifyAuthProvider(provider);
  const secrets: SecretSource[] = [];
  for (const source of STATIC_CREDENTIAL_SOURCES) {
    const inline = user.get(source.inline);
    const file = user.get(source.path);
    if (typeof inline === 'string' && inline !== '')
      secrets.push({ field: source.field, key: source.inline, inline, base64: source.inline.endsWith('-data') });
    else if (typeof file === 'string' && file !== '')
      secrets.push({ field: source.field, key: source.path, path: file });
  }
  if (secrets.length === 0)
    return { kind: 'left', reason: 'it has no credentials Kubecred can take over', holdsCredentials: false };
  const fields = new Set(secrets.map((s) => s.field));
  if (!fields.has('token') && fields.has('client-certificate') !== fields.has('client-key')) {
    return {
      kind: 'left',
      reason: `it has a client ${fields.has('client-key') ? 'key' : 'certificate'} without the matching ${fields.has('client-key') ? 'certificate' : 'key'}`,
      holdsCredentials: true,
    };
  }
  return { kind: 'static', secrets };
}

function classifyAuthProvider(provider: YAMLMap): UserCredential {
  const name = provider.get('name');
  if (name !== 'oidc') {
    return {
      kind: 'left',
      reason: `its auth-provider "${String(name)}" was removed from kubectl in 1.26; replace it with that cloud's exec plugin (e.g. gke-gcloud-auth-plugin, kubelogin), then run kubecred import again`,
      holdsCredentials: true,
    };
  }
  const config = provider.get('config', true);
  const read = (key: string): string | undefined => {
    const value = isMap(config) ? config.get(key) : undefined;
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  const issuer = read('idp-issuer-url');
  const clientId = read('client-id');
  if (!issuer || !clientId)
    return {
      kind: 'left',
      reason: 'its oidc auth-provider has no idp-issuer-url or client-id',
      holdsCredentials: true,
    };
  const settings: Record<string, string> = { issuer, clientId };
  for (const [key, setting] of [
    ['idp-certificate-authority', 'caPath'],
    ['idp-certificate-authority-data', 'caData'],
    ['extra-scopes', 'extraScopes'],
  ] as const) {
    const value = read(key);
    if (value) settings[setting] = value;
  }
  const secrets: SecretSource[] = [];
  for (const [key, field] of [
    ['refresh-token', 'refresh-token'],
    ['client-secret', 'client-secret'],
    // Served until it ends, so the context works at once, without a refresh (importedIdToken.ts).
    ['id-token', 'id-token'],
  ] as const) {
    const value = read(key);
    if (value) secrets.push({ field, key: `auth-provider.config.${key}`, inline: value });
  }
  return { kind: 'oidc', settings, secrets };
}
