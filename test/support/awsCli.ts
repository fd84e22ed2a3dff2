import { execa } from 'execa';

/** The instant every aws CLI oracle runs at (under faketime), so its presigned tokens can be compared byte for byte. */
export const AWS_CLI_INSTANT = '2026-01-02 03:04:05';
export const AWS_CLI_AT = Date.parse(`${AWS_CLI_INSTANT.replace(' ', 'T')}Z`);

/**
 * `aws eks get-token` at AWS_CLI_INSTANT with only `env` and what the CLI needs to start (PATH,
 * UTC, pyenv's root, no instance metadata); `input` goes to its stdin, and `noTerminal` runs it
 * in a new session (setsid), so it reads an MFA code from stdin rather than a terminal.
 */
export async function awsEksGetToken(options: {
  readonly profile?: string;
  readonly cluster: string;
  readonly region: string;
  readonly env: Readonly<Record<string, string>>;
  readonly input?: string;
  readonly noTerminal?: boolean;
}): Promise<{ token: string; expirationTimestamp: string }> {
  const getToken = [
    'faketime',
    '-f',
    AWS_CLI_INSTANT,
    'aws',
    'eks',
    'get-token',
    ...(options.profile ? ['--profile', options.profile] : []),
    '--cluster-name',
    options.cluster,
    '--region',
    options.region,
    '--output',
    'json',
  ];
  const [command, ...args] = options.noTerminal ? ['setsid', '-w', ...getToken] : getToken;
  const result = await execa(command!, args, {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      TZ: 'UTC',
      AWS_EC2_METADATA_DISABLED: 'true',
      ...(process.env.PYENV_ROOT ? { PYENV_ROOT: process.env.PYENV_ROOT } : {}),
      ...options.env,
    },
    extendEnv: false,
    ...(options.input !== undefined ? { input: options.input } : {}),
    timeout: 60_000,
  });
  return (JSON.parse(result.stdout) as { status: { token: string; expirationTimestamp: string } }).status;
}
