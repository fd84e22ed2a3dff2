import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../../src/main/cli/commandTable.js';
import { runCli } from '../../../src/main/cli/main.js';

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await runCli(
    argv,
    { stdin: new PassThrough(), stdout, stderr, env: { KUBECRED_HOME: '/nonexistent-kubecred-home' } },
    { command: 'node', args: ['kubecred'] },
  );
  return { code, stdout: out, stderr: err };
}

// A command's help loads its module, and `daemon`'s is the whole broker: under Wine (node.exe)
// on a busy 2-core machine that first import alone took over 10 s.
const FIRST_IMPORT_MS = 60_000;

describe('help for every command', () => {
  it.each(COMMANDS.map((c) => c.name))(
    'kubecred %s --help prints its usage and does nothing else',
    async (name) => {
      const result = await cli([name, '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^kubecred ${name}: .+\\nusage: kubecred ${name}`));
      expect(result.stderr).toBe('');
    },
    FIRST_IMPORT_MS,
  );

  it('kubecred help <command> is the same as <command> --help', async () => {
    expect(await cli(['help', 'doctor'])).toEqual(await cli(['doctor', '--help']));
  });

  // New-user finding 2a.
  it("profile add --help names each provider's fields and secrets", async () => {
    const result = await cli(['profile', 'add', '--help']);
    expect(result.code).toBe(0);
    const byProvider = Object.fromEntries(
      result.stdout.split(/\n(?=  \w)/).map((section) => [section.trim().split(/\s+/)[0], section]),
    );
    expect(byProvider.static).toContain('secrets: token, client-certificate, client-key');
    expect(byProvider.oidc).toMatch(/--issuer <value> --client-id <value>/);
    expect(byProvider.oidc).toContain('[--ca-file <value>]');
    expect(byProvider.oidc).toContain('[--scope <value> ...]');
    expect(byProvider.oidc).toContain('secrets: refresh-token, client-secret');
    expect(byProvider.exec).toContain('--command <value> [--arg <value> ...] [--env NAME=value ...]');
    expect(byProvider.keystone).toContain('secrets: password, application-credential-secret');
    expect(byProvider.eks).toContain('--cluster-id <value> --region <value>');
    expect(result.stdout).toContain('[--approval never|once-per-process|always]');
  });

  it('the flags profile add --help lists are the ones profile add takes', async () => {
    const { profileFromFlags } = await import('../../../src/main/cli/profileFlags.js');
    const { providerFields } = await import('../../../src/main/cli/providerFields.js');
    const { PROVIDER_KINDS } = await import('../../../src/shared/config/providerFacts.js');
    const { profileSchema } = await import('../../../src/shared/config/schema.js');
    const samples: Record<string, string> = {
      command: '/bin/true',
      issuer: 'https://id.example',
      'sts-endpoint': 'https://sts.example',
      'auth-url': 'https://ks.example/v3',
      region: 'us-east-1',
      'secret-store': 'keychain',
      ttl: '5m',
      timeout: '1m',
      'clock-skew': '30s',
      'redirect-port': '8000',
      env: 'A=b',
      'role-arn': 'arn:aws:iam::123456789012:role/admin',
      'role-session-name': 'kc',
      'external-id': 'ext-42',
      'duration-seconds': '3600',
      'mfa-serial': 'arn:aws:iam::123456789012:mfa/alice',
    };
    for (const provider of PROVIDER_KINDS) {
      const flags = providerFields(provider)
        .filter((field) => field.kind !== 'file-only')
        .flatMap((field) => [`--${field.flag}`, field.choices?.[0] ?? samples[field.flag] ?? 'x']);
      const parsed = profileSchema.safeParse(profileFromFlags('p', ['--provider', provider, ...flags]));
      expect(parsed.success, `${provider}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    }
  });

  it("credential --help names --api-version, and profile's summary says it adds, changes and removes", async () => {
    expect((await cli(['credential', '--help'])).stdout).toContain('--api-version client.authentication.k8s.io/v1');
    expect((await cli(['--help'])).stdout).toMatch(/profile +list, add, change \(set\) and remove \(rm\)/);
  });

  it('an unknown command says how to list them', async () => {
    const result = await cli(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Run kubecred --help');
  });
});
