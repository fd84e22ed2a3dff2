// The main window's "Add profile" form: which fields each provider needs, and the few optional
// ones a first use often needs; anything rarer is set with Edit… afterwards. Validation stays
// with the broker.

import { PROVIDER_KINDS, type ProviderKind } from '../shared/config/providerFacts.js';

export const PROVIDERS = PROVIDER_KINDS;
export type ProviderName = ProviderKind;

export interface FieldSpec {
  readonly key: string;
  readonly label: string;
  /** A list in config.yaml, typed one item per line. */
  readonly list?: boolean;
  readonly placeholder?: string;
  /** A secret: typed hidden, sent to the secret store, never shown back. */
  readonly secret?: boolean;
  /** A PEM file picked from disk and read in the page (a certificate, a key): never typed or shown. */
  readonly file?: boolean;
}

export const PROVIDER_FIELDS: Readonly<Record<ProviderName, readonly FieldSpec[]>> = {
  static: [],
  exec: [
    { key: 'command', label: 'Command', placeholder: '/usr/local/bin/aws' },
    { key: 'args', label: 'Arguments (one per line)', list: true },
  ],
  oidc: [
    { key: 'issuer', label: 'Issuer URL', placeholder: 'https://login.example.com' },
    { key: 'clientId', label: 'Client ID' },
  ],
  keystone: [
    { key: 'authUrl', label: 'Auth URL', placeholder: 'https://keystone.example.com:5000/v3' },
    { key: 'username', label: 'User name' },
    { key: 'userDomainName', label: 'User domain' },
    { key: 'projectName', label: 'Project' },
    { key: 'projectDomainName', label: 'Project domain' },
  ],
  eks: [
    { key: 'clusterId', label: 'Cluster ID' },
    { key: 'region', label: 'Region', placeholder: 'eu-west-1' },
  ],
};

/** What the edit form adds to the required fields: the settings people change afterwards. */
export const OPTIONAL_FIELDS: Readonly<Record<ProviderName, readonly FieldSpec[]>> = {
  static: [],
  exec: [],
  oidc: [
    { key: 'caFile', label: 'CA file (PEM, for a private issuer)', placeholder: '/etc/ssl/private-ca.pem' },
    {
      key: 'scopes',
      label: 'Scopes (one per line; none given: openid and offline_access)',
      list: true,
      placeholder: 'openid\noffline_access',
    },
  ],
  keystone: [{ key: 'caFile', label: 'CA file (PEM)' }],
  eks: [
    { key: 'awsProfile', label: 'AWS profile (keys from ~/.aws instead of the secret store)', placeholder: 'default' },
    {
      key: 'roleArn',
      label: 'Role to assume (one session serves every cluster)',
      placeholder: 'arn:aws:iam::123456789012:role/admin',
    },
    {
      key: 'mfaSerial',
      label: 'MFA device (its code is asked once per session)',
      placeholder: 'arn:aws:iam::123456789012:mfa/alice',
    },
    { key: 'externalId', label: 'External ID (when the role asks for one)' },
    { key: 'stsEndpoint', label: 'STS endpoint (private VPC endpoint)' },
  ],
};

// What a private issuer or an assumed role needs on the first day: asked once, not in a second
// trip through Edit….
const ADDED_WITH_THE_PROFILE: Readonly<Record<ProviderName, readonly string[]>> = {
  static: [],
  exec: [],
  oidc: ['caFile', 'scopes'],
  keystone: [],
  eks: ['awsProfile', 'roleArn'],
};

/** The add form's "More settings": optional fields of the provider, offered before its first use. */
export function moreSettings(provider: ProviderName): readonly FieldSpec[] {
  return OPTIONAL_FIELDS[provider].filter((field) => ADDED_WITH_THE_PROFILE[provider].includes(field.key));
}

/**
 * The secret the add form takes with the profile, sent to the secret store once the profile is
 * added (never to config.yaml): a static profile's token, as it has no login to ask for it. A
 * certificate and key are PEM files, picked with Edit….
 */
export function secretsAddedWithProfile(provider: ProviderName): readonly FieldSpec[] {
  return provider === 'static' ? SECRET_FIELDS.static.filter((field) => field.key === 'token') : [];
}

/**
 * The secrets a provider reads from its store, offered in the edit form (the broker refuses any
 * other field). A static profile's certificate and key are PEM files, picked rather than pasted.
 */
export const SECRET_FIELDS: Readonly<Record<ProviderName, readonly FieldSpec[]>> = {
  static: [
    { key: 'token', label: 'Bearer token', secret: true },
    { key: 'client-certificate', label: 'Client certificate (PEM file)', secret: true, file: true },
    { key: 'client-key', label: 'Client key (PEM file)', secret: true, file: true },
  ],
  exec: [],
  oidc: [{ key: 'client-secret', label: 'Client secret (confidential clients only)', secret: true }],
  keystone: [
    { key: 'password', label: 'Password', secret: true },
    { key: 'application-credential-secret', label: 'Application credential secret', secret: true },
  ],
  eks: [
    { key: 'aws-access-key-id', label: 'AWS access key ID', secret: true },
    { key: 'aws-secret-access-key', label: 'AWS secret access key', secret: true },
  ],
};

/**
 * The request for the broker: empty fields are left out (so the schema says what is missing,
 * in its own words) and list fields become arrays.
 */
export function profileRequest(
  name: string,
  provider: ProviderName,
  values: Readonly<Record<string, string>>,
): Record<string, string | string[]> {
  const request: Record<string, string | string[]> = { name: name.trim(), provider };
  for (const field of [...PROVIDER_FIELDS[provider], ...moreSettings(provider)]) {
    const raw = values[field.key] ?? '';
    if (field.list) {
      const items = raw
        .split('\n')
        .map((s) => s.trim())
        .filter(Boolean);
      if (items.length) request[field.key] = items;
    } else if (raw.trim()) {
      request[field.key] = raw.trim();
    }
  }
  return request;
}

/** The form field a server complaint is about: "args.0" belongs to "args"; "" to the form. */
export function fieldOf(path: string | undefined): string {
  return (path ?? '').split('.')[0] ?? '';
}
