import { writeFile } from 'node:fs/promises';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EksProvider } from '../../src/main/providers/eks/eksProvider.js';
import type { SecretStore } from '../../src/main/core/secretStore.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';
import { FakeClock } from '../support/fakes/fakeClock.js';
import { offlineAwsSessions } from '../support/offlineAwsSessions.js';
import { AWS_CLI_AT as AT, awsEksGetToken } from '../support/awsCli.js';

// Equality with the real `aws eks get-token` (AWS CLI v1 here) at one fixed instant.
// faketime -f with an absolute date freezes the clock (plain `faketime DATE` lets it run
// from DATE, and the CLI's second-long start-up could then tick X-Amz-Date over).
const KEYS = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
// Shaped like a real session token: base64 with "/", "+" and "=", which the query must escape.
const SESSION_TOKEN = 'IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQD6+example/session+token==';

const tools = await execa('sh', ['-c', 'command -v aws && command -v faketime'], { reject: false });
const available = tools.exitCode === 0;

/**
 * The aws CLI's whole environment: its files in `home`, no instance metadata, and a proxy
 * nobody listens on, so any network call fails loudly (get-token only signs).
 */
function awsCliEnv(home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    TZ: 'UTC',
    AWS_CONFIG_FILE: `${home}/config`,
    AWS_SHARED_CREDENTIALS_FILE: `${home}/credentials`,
    AWS_EC2_METADATA_DISABLED: 'true',
    HTTPS_PROXY: 'http://127.0.0.1:9',
    HTTP_PROXY: 'http://127.0.0.1:9',
    ...(process.env.PYENV_ROOT ? { PYENV_ROOT: process.env.PYENV_ROOT } : {}),
  };
}

interface CliCase {
  readonly region: string;
  readonly cluster: string;
  readonly sessionToken?: string;
}

const CASES: CliCase[] = [
  { region: 'us-east-1', cluster: 'prod' },
  { region: 'us-east-1', cluster: 'prod', sessionToken: SESSION_TOKEN },
  { region: 'eu-west-1', cluster: 'team-a_cluster', sessionToken: SESSION_TOKEN },
  { region: 'eu-west-1', cluster: 'team-a_cluster' },
  { region: 'cn-north-1', cluster: 'prod', sessionToken: SESSION_TOKEN },
  // E1: partitions beyond aws and aws-cn, which the region pattern once refused.
  { region: 'eusc-de-east-1', cluster: 'prod', sessionToken: SESSION_TOKEN },
  { region: 'us-isob-east-1', cluster: 'prod' },
];

describe.skipIf(!available)('EksProvider equals `aws eks get-token` byte for byte', () => {
  let home: TempHome;
  const cli = new Map<CliCase, { token: string; expirationTimestamp: string }>();

  beforeAll(async () => {
    home = await makeTempHome();
    // Empty config and credentials files, no instance metadata: the CLI sees only our keys.
    await writeFile(`${home.dir}/config`, '');
    await writeFile(`${home.dir}/credentials`, '');
    const env = {
      ...awsCliEnv(home.dir),
      AWS_ACCESS_KEY_ID: KEYS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: KEYS.secretAccessKey,
    };
    await Promise.all(
      CASES.map(async (c) => {
        const status = await awsEksGetToken({
          cluster: c.cluster,
          region: c.region,
          env: { ...env, ...(c.sessionToken ? { AWS_SESSION_TOKEN: c.sessionToken } : {}) },
        });
        cli.set(c, status);
      }),
    );
  });
  afterAll(async () => {
    await home?.cleanup();
  });

  function storeWith(sessionToken: string | undefined): SecretStore {
    const values: Record<string, string | undefined> = {
      'aws-access-key-id': KEYS.accessKeyId,
      'aws-secret-access-key': KEYS.secretAccessKey,
      'aws-session-token': sessionToken,
    };
    return {
      name: 'test keychain',
      get: async ({ field }) => values[field],
      set: async () => undefined,
      delete: async () => false,
      list: async () => [],
    };
  }

  it.each(CASES.map((c) => [`${c.region}, ${c.sessionToken ? 'with' : 'without'} a session token`, c] as const))(
    '%s',
    async (_name, c) => {
      const provider = new EksProvider(
        { name: 'eks', provider: 'eks', approval: 'never', clusterId: c.cluster, region: c.region },
        {
          store: async () => storeWith(c.sessionToken),
          clock: new FakeClock(AT),
          sessions: offlineAwsSessions(new FakeClock(AT)),
        },
      );
      const credential = await provider.getCredential({ profile: 'eks', cluster: undefined, interactive: false });
      const expected = cli.get(c);
      expect(credential.token).toBe(expected?.token);
      // The CLI prints whole seconds; 14 minutes after the instant.
      expect(credential.expiresAt?.toISOString().replace('.000Z', 'Z')).toBe(expected?.expirationTimestamp);
      expect(expected?.expirationTimestamp).toBe('2026-01-02T03:18:05Z');
    },
  );

  it("matches this CLI's endpoint choice: regional STS even for us-east-1", () => {
    const url = (c: CliCase) =>
      new URL(Buffer.from((cli.get(c)?.token ?? '').slice('k8s-aws-v1.'.length), 'base64url').toString());
    expect(url(CASES[0]!).host).toBe('sts.us-east-1.amazonaws.com');
    expect(url(CASES[4]!).host).toBe('sts.cn-north-1.amazonaws.com.cn');
    expect(url(CASES[1]!).searchParams.get('X-Amz-Security-Token')).toBe(SESSION_TOKEN);
  });
});

// Issue 17, first step: a named profile of the aws CLI's own files. The CLI, given the same
// files and --profile, is the oracle: equal tokens mean the same keys were found.
describe.skipIf(!available)('EksProvider with awsProfile equals `aws eks get-token --profile` byte for byte', () => {
  let home: TempHome;
  const OTHER = { accessKeyId: 'AKIAI44QH8DHBEXAMPLE', secretAccessKey: 'je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY' };
  const THIRD = { accessKeyId: 'AKIAJ2MXQ7BEXAMPLE99', secretAccessKey: 'Zx9vK3/lA0wN8sT1uQeR5yHdEXAMPLEKEY+abcd' };
  const PROFILES = ['in-credentials', 'in-config', 'both', 'default'] as const;
  const cli = new Map<string, string>();
  let env: Record<string, string>;

  beforeAll(async () => {
    home = await makeTempHome();
    await writeFile(
      `${home.dir}/credentials`,
      [
        `[in-credentials]`,
        `aws_access_key_id = ${KEYS.accessKeyId}`,
        `aws_secret_access_key = ${KEYS.secretAccessKey}`,
        '',
        `[both]`,
        `aws_access_key_id=${KEYS.accessKeyId}`,
        `aws_secret_access_key=${KEYS.secretAccessKey}`,
        '',
        '# the default',
        `[default]`,
        `aws_access_key_id = ${THIRD.accessKeyId}`,
        `aws_secret_access_key = ${THIRD.secretAccessKey}`,
        '',
      ].join('\n'),
    );
    await writeFile(
      `${home.dir}/config`,
      [
        `[profile in-config]`,
        `region = eu-west-1`,
        `aws_access_key_id = ${OTHER.accessKeyId}`,
        `aws_secret_access_key = ${OTHER.secretAccessKey}`,
        `aws_session_token = ${SESSION_TOKEN}`,
        `s3 =`,
        `  max_concurrent_requests = 20`,
        '',
        `[profile both]`,
        `aws_access_key_id = ${OTHER.accessKeyId}`,
        `aws_secret_access_key = ${OTHER.secretAccessKey}`,
        '',
      ].join('\n'),
    );
    env = awsCliEnv(home.dir);
    await Promise.all(
      PROFILES.map(async (profile) => {
        cli.set(profile, (await awsEksGetToken({ profile, cluster: 'prod', region: 'us-east-1', env })).token);
      }),
    );
  });
  afterAll(async () => {
    await home?.cleanup();
  });

  const provider = (awsProfile: string) =>
    new EksProvider(
      { name: 'eks', provider: 'eks', approval: 'never', clusterId: 'prod', region: 'us-east-1', awsProfile },
      {
        store: async () => Promise.reject(new Error('an awsProfile never reads the secret store')),
        clock: new FakeClock(AT),
        sessions: offlineAwsSessions(new FakeClock(AT)),
        env,
      },
    );

  it.each(PROFILES)('profile %s', async (awsProfile) => {
    const credential = await provider(awsProfile).getCredential({
      profile: 'eks',
      cluster: undefined,
      interactive: false,
    });
    expect(credential.token).toBe(cli.get(awsProfile));
  });

  it("the files decide: the same key in both files is the credentials file's, as the CLI has it", () => {
    const keyOf = (profile: string) =>
      new URL(Buffer.from(cli.get(profile)!.slice('k8s-aws-v1.'.length), 'base64url').toString()).searchParams
        .get('X-Amz-Credential')
        ?.split('/')[0];
    expect(keyOf('both')).toBe(KEYS.accessKeyId);
    expect(keyOf('in-config')).toBe(OTHER.accessKeyId);
    expect(keyOf('default')).toBe(THIRD.accessKeyId);
  });

  it('a profile the files do not have, or an SSO profile without its session, is refused saying what to do; no key in the words', async () => {
    await expect(
      provider('nowhere').getCredential({ profile: 'eks', cluster: undefined, interactive: false }),
    ).rejects.toThrow(/there is no AWS profile "nowhere"/);
    await writeFile(
      `${home.dir}/config`,
      `[profile sso]\nsso_session = corp\nsso_account_id = 123456789012\n[profile in-credentials]\nsso_session = corp\n`,
      { flag: 'a' },
    );
    const refused = await provider('in-credentials')
      .getCredential({ profile: 'eks', cluster: undefined, interactive: false })
      .catch((error: Error & { hint?: string }) => error);
    expect(String(refused)).toMatch(
      /AWS profile "in-credentials" names sso_session corp, and .* has no \[sso-session corp\]/,
    );
    expect(`${(refused as Error).message} ${(refused as { hint?: string }).hint}`).not.toMatch(
      new RegExp(`${KEYS.accessKeyId}|${KEYS.secretAccessKey.replaceAll('/', '\\/')}`),
    );
  });
});
