import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BrokerError } from '../../broker/brokerError.js';

export interface AwsKeys {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/** An INI file as botocore reads it: sections of keys (lower-cased), comments only at line start. */
export function parseAwsIni(text: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let current: Map<string, string> | undefined;
  for (const raw of text.split(/\r?\n/)) {
    // An indented line continues the key above (s3 = / max_concurrent_requests = 20): never a credential.
    if (/^\s/.test(raw) && raw.trim() !== '') continue;
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[\s*(.+?)\s*\]$/.exec(line);
    if (header) {
      current = sections.get(header[1]!) ?? new Map();
      sections.set(header[1]!, current);
      continue;
    }
    const eq = line.search(/[=:]/);
    if (eq <= 0 || !current) continue;
    current.set(line.slice(0, eq).trim().toLowerCase(), line.slice(eq + 1).trim());
  }
  return sections;
}

/** Where the aws CLI looks: AWS_CONFIG_FILE and AWS_SHARED_CREDENTIALS_FILE, else ~/.aws. */
export function awsSharedFiles(env: Readonly<Record<string, string | undefined>>, home = os.homedir()): { config: string; credentials: string } {
  const expand = (file: string) => (file.startsWith('~/') ? path.join(home, file.slice(2)) : file);
  return {
    config: expand(env.AWS_CONFIG_FILE || path.join(home, '.aws', 'config')),
    credentials: expand(env.AWS_SHARED_CREDENTIALS_FILE || path.join(home, '.aws', 'credentials')),
  };
}

// What makes the aws CLI get keys another way than from the files (botocore's chain puts role
// assumption, web identity and SSO before the shared credentials file): refused, never a
// silent use of keys the CLI would not use.
const NOT_YET = ['role_arn', 'web_identity_token_file', 'sso_start_url', 'sso_session', 'sso_account_id'];

/**
 * The long-lived keys the aws CLI uses for `--profile name`, with its precedence: the
 * credentials file's section over the config file's (`[profile name]`, or `[default]`);
 * a profile set to assume a role or use SSO is refused with what to do instead.
 */
export function keysOfAwsProfile(name: string, configText: string, credentialsText: string, where: { config: string; credentials: string }): AwsKeys {
  const fromCredentials = parseAwsIni(credentialsText).get(name);
  const config = parseAwsIni(configText);
  const fromConfig = config.get(`profile ${name}`) ?? (name === 'default' ? config.get('default') : undefined);
  for (const [section, file] of [[fromConfig, where.config], [fromCredentials, where.credentials]] as const) {
    const other = NOT_YET.find((key) => section?.has(key));
    if (other) {
      throw new BrokerError('config-invalid', `AWS profile "${name}" in ${file} uses ${other}: Kubecred does not assume roles or use SSO yet`, `store long-lived keys instead (kubecred secret set <profile> aws-access-key-id, aws-secret-access-key), or keep using aws eks get-token for this cluster`);
    }
  }
  const section = fromCredentials?.get('aws_access_key_id') ? fromCredentials : fromConfig?.get('aws_access_key_id') ? fromConfig : undefined;
  const accessKeyId = section?.get('aws_access_key_id');
  const secretAccessKey = section?.get('aws_secret_access_key');
  if (!section || !accessKeyId || !secretAccessKey) {
    const hasProcess = fromCredentials?.has('credential_process') || fromConfig?.has('credential_process');
    throw new BrokerError(
      'config-invalid',
      hasProcess ? `AWS profile "${name}" gets its keys from credential_process, which Kubecred does not run yet` : `AWS profile "${name}" has no aws_access_key_id and aws_secret_access_key in ${where.credentials} or ${where.config}`,
      `check the profile with: aws configure list --profile ${name}`,
    );
  }
  const sessionToken = section.get('aws_session_token') || section.get('aws_security_token');
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}

/** Reads both files now (keys rotate; nothing is kept) and resolves the profile's keys. */
export async function readAwsProfileKeys(name: string, env: Readonly<Record<string, string | undefined>>, home?: string): Promise<AwsKeys> {
  const files = awsSharedFiles(env, home);
  const read = (file: string) => readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? '' : Promise.reject(new BrokerError('config-invalid', `cannot read ${file} (${error.code ?? error.message})`, 'check its permissions'))));
  const [configText, credentialsText] = await Promise.all([read(files.config), read(files.credentials)]);
  return keysOfAwsProfile(name, configText, credentialsText, files);
}
