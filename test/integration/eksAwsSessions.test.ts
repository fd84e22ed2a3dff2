import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EksProfileConfig } from '../../src/shared/config/schema.js';
import { AwsSessions, type MfaQuestion } from '../../src/main/providers/eks/awsSessions.js';
import { runCredentialProcess } from '../../src/main/providers/eks/credentialProcess.js';
import { EksProvider } from '../../src/main/providers/eks/eksProvider.js';
import { HttpSsoClient } from '../../src/main/providers/eks/ssoClient.js';
import { HttpStsClient } from '../../src/main/providers/eks/stsClient.js';
import type { AwsCredentials } from '../../src/main/providers/eks/sigv4.js';
import { startMotoSts, type MotoSts } from '../support/motoSts.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';
import { FakeClock } from '../support/fakes/fakeClock.js';
import { AWS_CLI_AT as AT, awsEksGetToken } from '../support/awsCli.js';

// Issue 17: roles, MFA and credential_process against moto's STS (IAM enforced: signatures
// checked, AssumeRole allowed only by policy), with the real aws CLI as the oracle.
const ADMIN = 'arn:aws:iam::123456789012:role/admin';
const READ = 'arn:aws:iam::123456789012:role/read';
const FORBIDDEN = 'arn:aws:iam::123456789012:role/forbidden';
const MFA = 'arn:aws:iam::123456789012:mfa/alice';
const CODE = '123456';

const tools = await execa(
  'sh',
  ['-c', 'command -v aws && command -v faketime && command -v moto_server && command -v setsid'],
  { reject: false },
);
// scripts/setup-tests.sh installs them; in CI a missing one fails here instead of skipping.
const available = tools.exitCode === 0 || process.env.CI === 'true';

/** Tokens carry the signing keys' id and session token in the presigned URL. */
function tokenUrl(token: string): URL {
  return new URL(Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString());
}

describe.skipIf(!available)('eks roles, MFA and credential_process against moto', () => {
  let home: TempHome;
  let moto: MotoSts;
  let alice: AwsCredentials;
  let env: Record<string, string>;
  const questions: MfaQuestion[] = [];
  let answer: string | null = CODE;

  const sessionsFor = (clock: FakeClock) =>
    new AwsSessions({
      clock,
      sts: (endpoint) => new HttpStsClient(endpoint, () => clock.now()),
      askMfaCode: async (question) => (questions.push(question), answer),
      runProcess: runCredentialProcess,
      sso: new HttpSsoClient({}),
      ssoLogin: () => Promise.reject(new Error('these profiles never use SSO')),
    });
  const eks = (settings: Partial<EksProfileConfig>, sessions: AwsSessions, clock: FakeClock, cluster = 'prod') =>
    new EksProvider(
      {
        name: 'eks',
        provider: 'eks',
        approval: 'never',
        clusterId: cluster,
        region: 'eu-west-1',
        stsEndpoint: moto.url,
        ...settings,
      },
      {
        store: async () => Promise.reject(new Error('these profiles never read the secret store')),
        clock,
        env,
        sessions,
      },
    );

  beforeAll(async () => {
    home = await makeTempHome();
    moto = await startMotoSts();
    alice = await moto.iamUser('alice', [ADMIN, READ]);
    const processScript = path.join(home.dir, 'print-keys');
    await writeFile(
      processScript,
      `#!/bin/sh\necho '${JSON.stringify({ Version: 1, AccessKeyId: alice.accessKeyId, SecretAccessKey: alice.secretAccessKey })}'\n`,
    );
    await chmod(processScript, 0o700);
    await writeFile(
      path.join(home.dir, 'credentials'),
      `[alice]\naws_access_key_id = ${alice.accessKeyId}\naws_secret_access_key = ${alice.secretAccessKey}\n`,
    );
    await writeFile(
      path.join(home.dir, 'config'),
      [
        '[profile admin]',
        `role_arn = ${ADMIN}`,
        'source_profile = alice',
        'role_session_name = alice-admin',
        '[profile admin-mfa]',
        `role_arn = ${ADMIN}`,
        'source_profile = alice',
        'role_session_name = alice-mfa',
        `mfa_serial = ${MFA}`,
        'external_id = ext-42',
        'duration_seconds = 1800',
        '[profile proc]',
        `credential_process = ${processScript} --unused "quoted arg"`,
        '[profile proc-read]',
        `role_arn = ${READ}`,
        'source_profile = proc',
        'role_session_name = proc-read',
        '[profile forbidden]',
        `role_arn = ${FORBIDDEN}`,
        'source_profile = alice',
        'role_session_name = nope',
        '',
      ].join('\n'),
    );
    env = {
      HOME: home.dir,
      AWS_CONFIG_FILE: path.join(home.dir, 'config'),
      AWS_SHARED_CREDENTIALS_FILE: path.join(home.dir, 'credentials'),
    };
  }, 60_000);
  afterAll(async () => {
    await moto?.stop();
    await home?.cleanup();
  });

  /** `aws eks get-token --profile X` at INSTANT against moto; the MFA code on stdin (no terminal: setsid). */
  async function cliToken(profile: string): Promise<{ token: string; calls: MotoSts['calls'] }> {
    const before = moto.calls.length;
    const { token } = await awsEksGetToken({
      profile,
      cluster: 'prod',
      region: 'eu-west-1',
      env: { ...env, AWS_ENDPOINT_URL_STS: moto.url },
      input: `${CODE}\n`,
      noTerminal: true,
    });
    return {
      token,
      calls: moto.calls.slice(before),
    };
  }

  // moto draws each session token from os.urandom, so two AssumeRoles never agree: the CLI's
  // answer is replayed to Kubecred for a request byte-equal to the CLI's, and only for that.
  it.each([
    ['role_arn + source_profile', 'admin'],
    ['role_arn + source_profile with mfa_serial, external_id and duration_seconds', 'admin-mfa'],
    ['role_arn whose source_profile uses credential_process', 'proc-read'],
  ])(
    '%s: the AssumeRole request and the token equal `aws eks get-token --profile` byte for byte',
    async (_shape, profile) => {
      const cli = await cliToken(profile);
      const assumed = cli.calls.filter((c) => c.action === 'AssumeRole');
      expect(assumed.map((c) => c.status)).toEqual([200]);
      moto.replayOnce(assumed[0]!.body, assumed[0]!.answer);
      const clock = new FakeClock(AT);
      const before = moto.calls.length;
      const credential = await eks({ awsProfile: profile }, sessionsFor(clock), clock).getCredential({
        profile: 'eks',
        cluster: undefined,
        interactive: false,
      });
      expect(moto.calls.slice(before).map((c) => c.body)).toEqual([assumed[0]!.body]);
      expect(credential.token).toBe(cli.token);
      expect(credential.identity).toBe(`${profile === 'proc-read' ? READ : ADMIN} (assumed)`);
    },
  );

  it("signs AssumeRole as AWS checks it: moto (IAM enforced) answers Kubecred's own request", async () => {
    const clock = new FakeClock(Date.now());
    const credential = await eks({ awsProfile: 'admin' }, sessionsFor(clock), clock).getCredential({
      profile: 'eks',
      cluster: undefined,
      interactive: false,
    });
    const last = moto.calls.at(-1)!;
    expect([last.action, last.status]).toEqual(['AssumeRole', 200]);
    expect(tokenUrl(credential.token!).searchParams.get('X-Amz-Credential')).toMatch(/^ASIA/);
    expect(last.answer).toContain(tokenUrl(credential.token!).searchParams.get('X-Amz-Security-Token')!.slice(0, 40));
  });

  it('50 concurrent callers of two clusters, an expired session: one MFA question, one AssumeRole, 50 tokens', async () => {
    const clock = new FakeClock(Date.now());
    const sessions = sessionsFor(clock);
    const providers = [
      eks({ awsProfile: 'admin-mfa' }, sessions, clock, 'prod'),
      eks({ awsProfile: 'admin-mfa' }, sessions, clock, 'staging'),
    ];
    const round = async () => {
      const [asked, assumed] = [questions.length, moto.count('AssumeRole')];
      const tokens = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          providers[i % 2]!.getCredential({ profile: `eks-${i % 2}`, cluster: undefined, interactive: false }),
        ),
      );
      return { tokens, asked: questions.length - asked, assumed: moto.count('AssumeRole') - assumed };
    };
    const first = await round();
    expect([first.asked, first.assumed, first.tokens.length]).toEqual([1, 1, 50]);
    expect(questions.at(-1)).toEqual({
      profile: expect.stringMatching(/^eks-[01]$/),
      mfaSerial: MFA,
      purpose: 'role admin in account 123456789012',
    });
    const keyIds = new Set(
      first.tokens.map((c) => tokenUrl(c.token!).searchParams.get('X-Amz-Credential')!.split('/')[0]),
    );
    expect(keyIds.size).toBe(1);
    // The session lasts duration_seconds = 1800; a token never outlives it.
    for (const c of first.tokens) expect(c.expiresAt!.getTime()).toBeLessThanOrEqual(clock.now() + 14 * 60_000);
    clock.advance(20 * 60_000);
    const reused = await round();
    expect([reused.asked, reused.assumed]).toEqual([0, 0]);
    for (const c of reused.tokens) expect(c.expiresAt!.getTime()).toBeLessThanOrEqual(clock.now() + 10 * 60_000);
    clock.advance(6 * 60_000);
    const renewed = await round();
    expect([renewed.asked, renewed.assumed, renewed.tokens.length]).toEqual([1, 1, 50]);
  });

  it('an MFA session without a role: GetSessionToken with the device and code, its keys sign', async () => {
    const clock = new FakeClock(Date.now());
    const before = moto.count('GetSessionToken');
    const credential = await eks({ awsProfile: 'alice', mfaSerial: MFA }, sessionsFor(clock), clock).getCredential({
      profile: 'eks',
      cluster: undefined,
      interactive: false,
    });
    expect(moto.count('GetSessionToken')).toBe(before + 1);
    const call = moto.calls.at(-1)!;
    expect([call.params.get('SerialNumber'), call.params.get('TokenCode'), call.status]).toEqual([MFA, CODE, 200]);
    expect(tokenUrl(credential.token!).searchParams.get('X-Amz-Security-Token')).toBeTruthy();
  });

  it("a profile's logout forgets its own sessions only; Lock all forgets every one", async () => {
    const clock = new FakeClock(Date.now());
    const sessions = sessionsFor(clock);
    const admin = eks({ awsProfile: 'admin-mfa' }, sessions, clock);
    const reader = eks({ awsProfile: 'alice', roleArn: READ, mfaSerial: MFA }, sessions, clock);
    const get = async (provider: EksProvider, profile: string) => {
      const asked = questions.length;
      await provider.getCredential({ profile, cluster: undefined, interactive: false });
      return questions.length - asked;
    };
    expect([await get(admin, 'eks-admin'), await get(reader, 'eks-read')]).toEqual([1, 1]);
    await admin.logout('eks-admin');
    // eks-read keeps its session: no question; eks-admin needs a new code.
    expect([await get(reader, 'eks-read'), await get(admin, 'eks-admin')]).toEqual([0, 1]);
    sessions.forgetAll();
    expect([await get(reader, 'eks-read'), await get(admin, 'eks-admin')]).toEqual([1, 1]);
  });

  it('renews silently while the MFA session is reused, not after it, nor after a logout', async () => {
    const clock = new FakeClock(Date.now());
    const provider = eks({ awsProfile: 'alice', mfaSerial: MFA, durationSeconds: 3600 }, sessionsFor(clock), clock);
    const context = { profile: 'eks', cluster: undefined, interactive: false };
    expect(provider.canRefreshSilently()).toBe(false); // nothing held: the next token asks for a code
    await provider.getCredential(context);
    expect(provider.canRefreshSilently()).toBe(true);
    await provider.logout('eks');
    expect(provider.canRefreshSilently()).toBe(false);
    await provider.getCredential(context);
    clock.advance(54 * 60_000);
    expect(provider.canRefreshSilently()).toBe(true);
    clock.advance(2 * 60_000); // within 5 minutes of the session's end: a new one, so a new code
    expect(provider.canRefreshSilently()).toBe(false);
  });

  it("a wrong MFA code: STS's words, one question, one request, no retry (stand-in: moto accepts any code)", async () => {
    moto.expectMfaCode('654321');
    try {
      const clock = new FakeClock(Date.now());
      const [asked, assumed] = [questions.length, moto.count('AssumeRole')];
      const refused = await eks({ awsProfile: 'admin-mfa' }, sessionsFor(clock), clock)
        .getCredential({ profile: 'eks', cluster: undefined, interactive: false })
        .catch((error: Error) => error);
      expect(String(refused)).toContain(
        'STS refused the MFA code: AccessDenied: MultiFactorAuthentication failed with invalid MFA one time pass code.',
      );
      expect((refused as { hint?: string }).hint).toMatch(/never retries a code/);
      expect([questions.length - asked, moto.count('AssumeRole') - assumed]).toEqual([1, 1]);
    } finally {
      moto.expectMfaCode(undefined);
    }
  });

  it('a cancelled MFA question and a code that is not six digits go nowhere', async () => {
    const clock = new FakeClock(Date.now());
    const assumed = moto.count('AssumeRole');
    for (const [given, words] of [
      [null, 'was not given'],
      ['12 34', 'six digits'],
    ] as const) {
      answer = given;
      const refused = await eks({ awsProfile: 'admin-mfa' }, sessionsFor(clock), clock)
        .getCredential({ profile: 'eks', cluster: undefined, interactive: false })
        .catch((error: Error) => error);
      expect(String(refused)).toContain(words);
    }
    answer = CODE;
    expect(moto.count('AssumeRole')).toBe(assumed);
  });

  it('an STS endpoint Kubecred refuses (plain http off loopback) is said before anyone is asked for a code', async () => {
    const clock = new FakeClock(Date.now());
    const asked = questions.length;
    const refused = await eks(
      { awsProfile: 'admin-mfa', stsEndpoint: 'http://sts.example.com/' },
      sessionsFor(clock),
      clock,
    )
      .getCredential({ profile: 'eks', cluster: undefined, interactive: false })
      .catch((error: Error) => error);
    expect(String(refused)).toContain('the STS endpoint http://sts.example.com is not https');
    expect(questions.length).toBe(asked);
  });

  it("a role the user may not assume: moto's AccessDenied quoted, with what to do, no key in it", async () => {
    const clock = new FakeClock(Date.now());
    const refused = await eks({ awsProfile: 'forbidden' }, sessionsFor(clock), clock)
      .getCredential({ profile: 'eks', cluster: undefined, interactive: false })
      .catch((error: Error) => error);
    expect(String(refused)).toMatch(
      /STS refused AssumeRole: AccessDenied: User: arn:aws:iam::123456789012:user\/alice is not authorized to perform: sts:AssumeRole/,
    );
    expect((refused as { hint?: string }).hint).toMatch(/trust policy/);
    expect(JSON.stringify({ message: String(refused), hint: (refused as { hint?: string }).hint })).not.toContain(
      alice.secretAccessKey,
    );
  });

  it("roleArn on the profile itself, over keys of an AWS profile, with the profile's own MFA and session name", async () => {
    const clock = new FakeClock(Date.now());
    const credential = await eks(
      { awsProfile: 'alice', roleArn: READ, roleSessionName: 'kc-read', mfaSerial: MFA, durationSeconds: 900 },
      sessionsFor(clock),
      clock,
    ).getCredential({ profile: 'eks', cluster: undefined, interactive: false });
    const call = moto.calls.at(-1)!;
    expect(Object.fromEntries(call.params)).toMatchObject({
      Action: 'AssumeRole',
      RoleArn: READ,
      RoleSessionName: 'kc-read',
      DurationSeconds: '900',
      SerialNumber: MFA,
      TokenCode: CODE,
    });
    expect(credential.identity).toBe(`${READ} (assumed)`);
    // 900 s sessions: the token ends a minute before the keys, within the session.
    expect(credential.expiresAt!.getTime()).toBeLessThanOrEqual(clock.now() + 14 * 60_000);
  });
});
