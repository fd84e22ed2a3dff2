import { createInterface } from 'node:readline/promises';
import { UsageError, type CliIo } from './io.js';

const PROVIDERS = ['static', 'exec', 'oidc', 'keystone', 'eks'] as const;

// The fields a person must give for each provider; everything else has a default.
const REQUIRED: Record<(typeof PROVIDERS)[number], Array<{ key: string; question: string; list?: boolean }>> = {
  static: [],
  exec: [{ key: 'command', question: 'Plugin command (absolute path)' }, { key: 'args', question: 'Arguments, space separated (empty for none)', list: true }],
  oidc: [{ key: 'issuer', question: 'Issuer URL' }, { key: 'clientId', question: 'Client ID' }],
  keystone: [{ key: 'authUrl', question: 'Keystone v3 URL (…/v3)' }, { key: 'username', question: 'User name' }, { key: 'userDomainName', question: 'User domain' }, { key: 'projectName', question: 'Project' }, { key: 'projectDomainName', question: 'Project domain' }],
  eks: [{ key: 'clusterId', question: 'EKS cluster name' }, { key: 'region', question: 'AWS region' }],
};

/** `kubecred profile add <name>` in a terminal: asks for the provider and what it needs. */
export async function askProfileInteractively(io: CliIo, name: string): Promise<Record<string, unknown>> {
  const rl = createInterface({ input: io.stdin, output: io.stderr });
  try {
    const provider = (await rl.question(`Provider for ${name} (${PROVIDERS.join(', ')}): `)).trim() as (typeof PROVIDERS)[number];
    if (!PROVIDERS.includes(provider)) throw new UsageError(`unknown provider "${provider}"`);
    const profile: Record<string, unknown> = { name, provider };
    for (const field of REQUIRED[provider]) {
      const answer = (await rl.question(`${field.question}: `)).trim();
      if (field.list) profile[field.key] = answer ? answer.split(/\s+/) : [];
      else if (answer) profile[field.key] = answer;
    }
    return profile;
  } finally {
    rl.close();
  }
}
