import type { KeystoneProfileConfig } from '../../../shared/config/schema.js';
import { BrokerError } from '../../core/brokerError.js';
import { v3AuthUrl } from './authUrl.js';

export type KeystoneMethod = 'password' | 'application-credential';
export type DomainRef = { readonly id: string } | { readonly name: string };

/**
 * What the token is scoped to. `default` sends no scope, so Keystone applies the user's
 * default project if it has one: client-keystone-auth does the same when no project is set.
 */
export type KeystoneScope =
  | { readonly kind: 'project'; readonly id: string }
  | { readonly kind: 'project'; readonly name: string; readonly domain: DomainRef | undefined }
  | { readonly kind: 'domain'; readonly domain: DomainRef }
  | { readonly kind: 'default' };

/** A profile's Keystone settings after profile fields and OS_* environment are merged; no secret. */
export interface KeystoneSettings {
  /** The v3 endpoint (…/v3); undefined when neither the profile nor OS_AUTH_URL gives it (the form asks). */
  readonly authUrl: string | undefined;
  readonly method: KeystoneMethod;
  readonly userId: string | undefined;
  readonly username: string | undefined;
  readonly userDomain: DomainRef | undefined;
  readonly scope: KeystoneScope;
  readonly applicationCredentialId: string | undefined;
  readonly applicationCredentialName: string | undefined;
  readonly caFile: string | undefined;
}

/** The OS_* names client-keystone-auth (gophercloud's clientconfig) reads, and what each sets. */
const ENV_NAMES = [
  'OS_AUTH_URL',
  'OS_USERNAME',
  'OS_USER_ID',
  'OS_USER_DOMAIN_NAME',
  'OS_USER_DOMAIN_ID',
  'OS_PROJECT_NAME',
  'OS_PROJECT_ID',
  'OS_TENANT_NAME',
  'OS_TENANT_ID',
  'OS_PROJECT_DOMAIN_NAME',
  'OS_PROJECT_DOMAIN_ID',
  'OS_DOMAIN_NAME',
  'OS_DOMAIN_ID',
  'OS_APPLICATION_CREDENTIAL_ID',
  'OS_APPLICATION_CREDENTIAL_NAME',
  'OS_AUTH_TYPE',
  'OS_CACERT',
] as const;

/** Found in every openrc file and meaningless for a token request, so pasting one just works. */
const HARMLESS_ENV_NAMES = new Set([
  'OS_REGION_NAME',
  'OS_INTERFACE',
  'OS_ENDPOINT_TYPE',
  'OS_IDENTITY_API_VERSION',
  'OS_AUTH_VERSION',
]);

/** Secrets belong in the secret store, never in config.yaml; the field that holds each instead. */
const SECRET_ENV_NAMES: Record<string, string> = {
  OS_PASSWORD: 'password',
  OS_APPLICATION_CREDENTIAL_SECRET: 'application-credential-secret',
  OS_TOKEN: 'password',
  OS_AUTH_TOKEN: 'password',
  OS_PASSCODE: 'password',
};

function configError(profile: string, message: string, hint: string): BrokerError {
  return new BrokerError('config-invalid', `profile "${profile}": ${message}`, hint);
}

function checkEnvironmentNames(profile: KeystoneProfileConfig): void {
  for (const name of Object.keys(profile.environment)) {
    const field = SECRET_ENV_NAMES[name];
    if (field) {
      // The value is never quoted: naming the variable is enough to find it.
      throw configError(
        profile.name,
        `${name} in environment puts a secret in config.yaml`,
        `remove it from the profile and store the value with: kubecred secret set ${profile.name} ${field}   (read from stdin), or leave it out and Kubecred asks for it`,
      );
    }
    if (!(ENV_NAMES as readonly string[]).includes(name) && !HARMLESS_ENV_NAMES.has(name)) {
      throw configError(
        profile.name,
        `environment names ${name}, which the Keystone provider does not read`,
        `use one of ${ENV_NAMES.join(', ')}`,
      );
    }
  }
}

const nonEmpty = (value: string | undefined): string | undefined =>
  value !== undefined && value.trim() !== '' ? value.trim() : undefined;

function domainRef(id: string | undefined, name: string | undefined): DomainRef | undefined {
  if (id !== undefined) return { id };
  if (name !== undefined) return { name };
  return undefined;
}

/**
 * Merges profile fields (first) with the profile's OS_* environment, the way
 * client-keystone-auth reads them: OS_DOMAIN_* is the default for the user's and the
 * project's domain, and the scope itself when no project is named; OS_PROJECT_* wins over
 * the older OS_TENANT_*. An application credential carries its own project, so no scope.
 */
export function resolveKeystoneSettings(profile: KeystoneProfileConfig): KeystoneSettings {
  checkEnvironmentNames(profile);
  const env = (name: (typeof ENV_NAMES)[number]): string | undefined => nonEmpty(profile.environment[name]);
  const pick = (field: string | undefined, ...names: (typeof ENV_NAMES)[number][]): string | undefined =>
    nonEmpty(field) ?? names.map(env).find((value) => value !== undefined);

  const rawUrl = pick(profile.authUrl, 'OS_AUTH_URL');
  const authUrl = rawUrl === undefined ? undefined : v3AuthUrl(rawUrl, profile.name);
  const domainId = pick(profile.domainId, 'OS_DOMAIN_ID');
  const domainName = pick(profile.domainName, 'OS_DOMAIN_NAME');
  const userDomain =
    domainRef(pick(profile.userDomainId, 'OS_USER_DOMAIN_ID'), pick(profile.userDomainName, 'OS_USER_DOMAIN_NAME')) ??
    domainRef(domainId, domainName);
  const username = pick(profile.username, 'OS_USERNAME');
  const userId = pick(profile.userId, 'OS_USER_ID');
  const applicationCredentialId = pick(profile.applicationCredentialId, 'OS_APPLICATION_CREDENTIAL_ID');
  const applicationCredentialName = pick(profile.applicationCredentialName, 'OS_APPLICATION_CREDENTIAL_NAME');
  const method = chooseMethod(profile, env('OS_AUTH_TYPE'), { applicationCredentialId, applicationCredentialName });

  const projectId = pick(profile.projectId, 'OS_PROJECT_ID', 'OS_TENANT_ID');
  const projectName = pick(profile.projectName, 'OS_PROJECT_NAME', 'OS_TENANT_NAME');
  const projectDomain =
    domainRef(
      pick(profile.projectDomainId, 'OS_PROJECT_DOMAIN_ID'),
      pick(profile.projectDomainName, 'OS_PROJECT_DOMAIN_NAME'),
    ) ?? domainRef(domainId, domainName);
  const scopeDomain = domainRef(domainId, domainName);
  let scope: KeystoneScope = { kind: 'default' };
  if (method === 'password') {
    if (projectId !== undefined) scope = { kind: 'project', id: projectId };
    else if (projectName !== undefined) scope = { kind: 'project', name: projectName, domain: projectDomain };
    else if (scopeDomain !== undefined) scope = { kind: 'domain', domain: scopeDomain };
  }

  // An application credential found by name belongs to a user, who needs a domain too.
  const needsUser = method === 'password' || applicationCredentialId === undefined;
  if (needsUser && userId === undefined && username !== undefined && userDomain === undefined) {
    throw configError(
      profile.name,
      `user "${username}" is named without its domain`,
      'set userDomainName (or userDomainId, OS_USER_DOMAIN_NAME, OS_DOMAIN_NAME), e.g. Default',
    );
  }
  if (scope.kind === 'project' && 'name' in scope && scope.domain === undefined) {
    throw configError(
      profile.name,
      `project "${scope.name}" is named without its domain`,
      'set projectDomainName (or projectDomainId, OS_PROJECT_DOMAIN_NAME, OS_DOMAIN_NAME), or give projectId instead',
    );
  }
  return {
    authUrl,
    method,
    userId,
    username,
    userDomain,
    scope,
    applicationCredentialId,
    applicationCredentialName,
    caFile: pick(profile.caFile, 'OS_CACERT'),
  };
}

/**
 * `method` defaults to password in the schema, so an openrc for an application credential
 * (OS_AUTH_TYPE=v3applicationcredential, or just an application credential id or name)
 * selects it too, as it does for client-keystone-auth.
 */
function chooseMethod(
  profile: KeystoneProfileConfig,
  authType: string | undefined,
  given: { applicationCredentialId: string | undefined; applicationCredentialName: string | undefined },
): KeystoneMethod {
  if (profile.method === 'application-credential') return 'application-credential';
  if (authType !== undefined) {
    if (authType === 'v3applicationcredential') return 'application-credential';
    if (authType !== 'password' && authType !== 'v3password') {
      throw configError(
        profile.name,
        `OS_AUTH_TYPE ${authType} is not supported`,
        'the Keystone provider speaks password and v3applicationcredential',
      );
    }
    return 'password';
  }
  return given.applicationCredentialId !== undefined || given.applicationCredentialName !== undefined
    ? 'application-credential'
    : 'password';
}

/** "project demo in domain Default", "domain Default", "the user's default project": for messages. */
export function describeScope(scope: KeystoneScope): string {
  switch (scope.kind) {
    case 'project':
      return 'id' in scope
        ? `project id ${scope.id}`
        : `project "${scope.name}" in domain ${describeDomain(scope.domain)}`;
    case 'domain':
      return `domain ${describeDomain(scope.domain)}`;
    default:
      return "the user's default project (no project or domain set)";
  }
}

export function describeDomain(domain: DomainRef | undefined): string {
  if (domain === undefined) return '(none)';
  return 'id' in domain ? `id ${domain.id}` : `"${domain.name}"`;
}
