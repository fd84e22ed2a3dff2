import os from 'node:os';
import path from 'node:path';

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
export function awsSharedFiles(
  env: Readonly<Record<string, string | undefined>>,
  home = os.homedir(),
): { config: string; credentials: string } {
  const expand = (file: string) => (file.startsWith('~/') ? path.join(home, file.slice(2)) : file);
  return {
    config: expand(env.AWS_CONFIG_FILE || path.join(home, '.aws', 'config')),
    credentials: expand(env.AWS_SHARED_CREDENTIALS_FILE || path.join(home, '.aws', 'credentials')),
  };
}
