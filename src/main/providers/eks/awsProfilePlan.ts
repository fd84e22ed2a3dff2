import { readFile } from 'node:fs/promises';
import { BrokerError } from '../../core/brokerError.js';
import { awsSharedFiles, parseAwsIni, type AwsKeys } from './awsSharedProfile.js';
import type { CredentialPlan, KeySource, SsoSource } from './credentialPlan.js';

type Section = ReadonlyMap<string, string>;
interface Files {
  readonly config: string;
  readonly credentials: string;
}

// botocore's own limit is none (it only detects loops); ten hops is past any real setup.
const MAX_CHAIN = 10;
const NOT_SUPPORTED: readonly (readonly [string, string])[] = [
  ['credential_source', 'takes its source keys from instance or container metadata, which a workstation does not have'],
  ['web_identity_token_file', 'uses web identity, which Kubecred does not do'],
];
const SSO_KEYS = ['sso_session', 'sso_start_url', 'sso_account_id', 'sso_role_name'];

/**
 * What the aws CLI does for `--profile name`, as a plan: botocore's chain for one profile
 * (role_arn with source_profile before keys in the credentials file, before credential_process,
 * before keys in the config file), following source_profile to its end.
 */
export function planOfAwsProfile(
  name: string,
  configText: string,
  credentialsText: string,
  where: Files,
): CredentialPlan {
  const credentials = parseAwsIni(credentialsText);
  const config = parseAwsIni(configText);
  const sections = (profile: string) => {
    const fromConfig = config.get(`profile ${profile}`) ?? (profile === 'default' ? config.get('default') : undefined);
    return { fromConfig, fromCredentials: credentials.get(profile) };
  };
  const resolve = (profile: string, seen: readonly string[]): CredentialPlan => {
    if (seen.includes(profile) || seen.length >= MAX_CHAIN) {
      throw new BrokerError(
        'config-invalid',
        `AWS profile "${name}" loops through source_profile: ${[...seen, profile].join(' → ')}`,
        `fix source_profile in ${where.config}`,
      );
    }
    const { fromConfig, fromCredentials } = sections(profile);
    if (!fromConfig && !fromCredentials) {
      throw new BrokerError(
        'config-invalid',
        `there is no AWS profile "${profile}" in ${where.config} or ${where.credentials}`,
        seen.length
          ? `fix source_profile of AWS profile "${seen.at(-1)}"`
          : 'check the name with: aws configure list-profiles',
      );
    }
    // botocore merges the credentials file over the config file for role settings.
    const merged: Section = new Map([...(fromConfig ?? []), ...(fromCredentials ?? [])]);
    const roleArn = merged.get('role_arn');
    if (roleArn) {
      const unsupported = NOT_SUPPORTED.find(([key]) => key === 'credential_source' && merged.has(key));
      if (unsupported) throw refused(profile, unsupported, where);
      const source = merged.get('source_profile');
      if (!source)
        throw new BrokerError(
          'config-invalid',
          `AWS profile "${profile}" has role_arn but no source_profile`,
          `add source_profile = <a profile with keys> to [profile ${profile}] in ${where.config}`,
        );
      // A profile that names itself as source uses its own keys for the first hop.
      const base =
        source === profile
          ? { source: keySource(profile, fromConfig, fromCredentials, where, true), steps: [] }
          : resolve(source, [...seen, profile]);
      return { source: base.source, steps: [...base.steps, roleStep(profile, roleArn, merged, where)] };
    }
    const unsupported = NOT_SUPPORTED.find(([key]) => merged.has(key));
    if (unsupported) throw refused(profile, unsupported, where);
    // botocore's chain tries SSO before the credentials file's keys.
    if (SSO_KEYS.some((key) => merged.has(key)))
      return { source: ssoSource(profile, merged, config, where), steps: [] };
    return { source: keySource(profile, fromConfig, fromCredentials, where, false), steps: [] };
  };
  return resolve(name, []);
}

function refused(profile: string, [key, why]: readonly [string, string], where: Files): BrokerError {
  return new BrokerError(
    'config-invalid',
    `AWS profile "${profile}" ${why} (${key} in ${where.config})`,
    'point awsProfile at a profile with keys, role_arn + source_profile, credential_process or SSO; or keep aws eks get-token for this cluster',
  );
}

function roleStep(profile: string, roleArn: string, merged: Section, where: Files) {
  const duration = merged.get('duration_seconds');
  const durationSeconds = duration === undefined ? undefined : Number(duration);
  if (
    durationSeconds !== undefined &&
    !(Number.isInteger(durationSeconds) && durationSeconds >= 900 && durationSeconds <= 43_200)
  ) {
    throw new BrokerError(
      'config-invalid',
      `AWS profile "${profile}" has duration_seconds = ${duration}: STS takes whole seconds from 900 to 43200`,
      `fix it in ${where.config}`,
    );
  }
  return {
    kind: 'role' as const,
    roleArn,
    roleSessionName: merged.get('role_session_name'),
    externalId: merged.get('external_id'),
    durationSeconds,
    mfaSerial: merged.get('mfa_serial'),
  };
}

/** An SSO profile: its account and role, and the start URL and region of its [sso-session] (or its own, the legacy form). */
function ssoSource(profile: string, merged: Section, config: ReadonlyMap<string, Section>, where: Files): SsoSource {
  const sessionName = merged.get('sso_session');
  const session = sessionName === undefined ? merged : config.get(`sso-session ${sessionName}`);
  if (!session)
    throw new BrokerError(
      'config-invalid',
      `AWS profile "${profile}" names sso_session ${sessionName}, and ${where.config} has no [sso-session ${sessionName}]`,
      `add it (aws configure sso-session), or fix sso_session of [profile ${profile}]`,
    );
  const need = (section: Section, key: string, of: string) => {
    const value = section.get(key);
    if (!value)
      throw new BrokerError(
        'config-invalid',
        `${of} has no ${key}`,
        `add ${key} to it in ${where.config} (aws configure sso sets them all)`,
      );
    return value;
  };
  const of = sessionName === undefined ? `AWS profile "${profile}"` : `[sso-session ${sessionName}]`;
  const scopes = (session.get('sso_registration_scopes') ?? '')
    .split(',')
    .map((scope) => scope.trim())
    .filter(Boolean);
  return {
    kind: 'sso',
    startUrl: need(session, 'sso_start_url', of),
    region: need(session, 'sso_region', of),
    accountId: need(merged, 'sso_account_id', `AWS profile "${profile}"`),
    roleName: need(merged, 'sso_role_name', `AWS profile "${profile}"`),
    scopes,
    from: `IAM Identity Center role of AWS profile "${profile}"`,
  };
}

/** Keys from one file as a whole set (the credentials file's first), else credential_process. */
function keySource(
  profile: string,
  fromConfig: Section | undefined,
  fromCredentials: Section | undefined,
  where: Files,
  selfSourced: boolean,
): KeySource {
  const keysIn = (section: Section | undefined, file: string): KeySource | undefined => {
    const accessKeyId = section?.get('aws_access_key_id');
    const secretAccessKey = section?.get('aws_secret_access_key');
    if (!accessKeyId || !secretAccessKey) return undefined;
    const sessionToken = section?.get('aws_session_token') || section?.get('aws_security_token');
    const keys: AwsKeys = { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
    return { kind: 'keys', keys, from: `AWS profile "${profile}" in ${file}` };
  };
  const command = fromCredentials?.get('credential_process') ?? fromConfig?.get('credential_process');
  const found =
    keysIn(fromCredentials, where.credentials) ??
    (command && !selfSourced
      ? { kind: 'process' as const, command, from: `credential_process of AWS profile "${profile}"` }
      : undefined) ??
    keysIn(fromConfig, where.config);
  if (found) return found;
  throw new BrokerError(
    'config-invalid',
    `AWS profile "${profile}" has no aws_access_key_id and aws_secret_access_key in ${where.credentials} or ${where.config}`,
    `check the profile with: aws configure list --profile ${profile}`,
  );
}

/** Reads both files now (keys rotate; nothing is kept) and plans the profile's credentials. */
export async function readAwsProfilePlan(
  name: string,
  env: Readonly<Record<string, string | undefined>>,
  home?: string,
): Promise<CredentialPlan> {
  const files = awsSharedFiles(env, home);
  const read = (file: string) =>
    readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) =>
      error.code === 'ENOENT'
        ? ''
        : Promise.reject(
            new BrokerError(
              'config-invalid',
              `cannot read ${file} (${error.code ?? error.message})`,
              'check its permissions',
            ),
          ),
    );
  const [configText, credentialsText] = await Promise.all([read(files.config), read(files.credentials)]);
  return planOfAwsProfile(name, configText, credentialsText, files);
}
