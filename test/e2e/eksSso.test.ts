import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoginPrompt } from '../../src/main/core/uiPorts.js';
import type { EksProfileConfig } from '../../src/shared/config/schema.js';
import { AwsSessions } from '../../src/main/providers/eks/awsSessions.js';
import { EksProvider } from '../../src/main/providers/eks/eksProvider.js';
import { HttpSsoClient } from '../../src/main/providers/eks/ssoClient.js';
import { ssoDeviceLogin } from '../../src/main/providers/eks/ssoDeviceLogin.js';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { V1_EXEC_INFO, callersFor } from '../support/callers.js';
import { launchChromium } from '../support/chromium.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { NATIVE_SHIM, REPO_ROOT, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { startSsoStandIn, type SsoStandIn } from '../support/ssoStandIn.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';
import { FakeClock } from '../support/fakes/fakeClock.js';
import { AWS_CLI_AT as AT, awsEksGetToken } from '../support/awsCli.js';

// Issue 17: IAM Identity Center (SSO) profiles. moto has no SSO-OIDC or portal, so a
// stand-in plays them (test/support/ssoStandIn.ts); the aws CLI is the oracle for the token.
const DEV = {
  accessKeyId: 'ASIASSODEVEXAMPLE001',
  secretAccessKey: 'ssoDevSecretKeyExample/0123456789abcdefGH',
  sessionToken: 'IQoJb3JpZ2luX2VjEFsoSession+Token/dev==',
};
const SHOTS = process.env.KUBECRED_SHOTS ?? path.join(REPO_ROOT, 'test-results', 'screenshots');
const OPS = {
  accessKeyId: 'ASIASSOOPSEXAMPLE002',
  secretAccessKey: 'ssoOpsSecretKeyExample/0123456789abcdefGH',
  sessionToken: 'IQoJb3JpZ2luX2VjEFsoSession+Token/ops==',
};

const tools = await execa('sh', ['-c', 'command -v aws && command -v faketime'], { reject: false });
const available = tools.exitCode === 0 || process.env.CI === 'true';

describe.skipIf(!available)('eks with IAM Identity Center (SSO) profiles', () => {
  let home: TempHome;
  let sso: SsoStandIn;
  let env: Record<string, string>;
  const shown: LoginPrompt[] = [];

  /** AwsSessions whose SSO logins show the code and "open" the page: the stand-in approves on that visit. */
  const sessionsFor = (clock: FakeClock, loginClock = clock, approve = true) => {
    const client = new HttpSsoClient(env);
    return new AwsSessions({
      clock,
      sts: () => ({
        assumeRole: () => Promise.reject(new Error('no STS here')),
        getSessionToken: () => Promise.reject(new Error('no STS here')),
      }),
      askMfaCode: () => Promise.reject(new Error('no MFA here')),
      runProcess: () => Promise.reject(new Error('no process here')),
      sso: client,
      ssoLogin: (settings, profile, signal) =>
        ssoDeviceLogin(
          settings,
          profile,
          {
            sso: client,
            clock: loginClock,
            show: (prompt) => shown.push(prompt),
            openBrowser: async (url) => (approve ? (await fetch(url)).ok : false),
          },
          signal,
        ),
    });
  };
  const eks = (awsProfile: string, sessions: AwsSessions, clock: FakeClock, cluster = 'prod') =>
    new EksProvider(
      {
        name: 'eks',
        provider: 'eks',
        approval: 'never',
        clusterId: cluster,
        region: 'eu-west-1',
        awsProfile,
      } as EksProfileConfig,
      { store: () => Promise.reject(new Error('no store')), clock, env, sessions },
    );

  beforeAll(async () => {
    home = await makeTempHome();
    sso = await startSsoStandIn();
    const far = Date.parse('2030-01-01T00:00:00Z');
    sso.setRole('111122223333', 'Developer', DEV, far);
    sso.setRole('111122223333', 'Operator', OPS, far);
    await writeFile(
      path.join(home.dir, 'config'),
      [
        '[sso-session corp]',
        'sso_start_url = https://corp.awsapps.com/start',
        'sso_region = eu-central-1',
        'sso_registration_scopes = sso:account:access',
        '[profile dev]',
        'sso_session = corp',
        'sso_account_id = 111122223333',
        'sso_role_name = Developer',
        'region = eu-west-1',
        '[profile ops]',
        'sso_session = corp',
        'sso_account_id = 111122223333',
        'sso_role_name = Operator',
        '[profile legacy]',
        'sso_start_url = https://old.awsapps.com/start',
        'sso_region = us-east-1',
        'sso_account_id = 111122223333',
        'sso_role_name = Developer',
        '',
      ].join('\n'),
    );
    await writeFile(path.join(home.dir, 'credentials'), '');
    env = {
      HOME: home.dir,
      AWS_CONFIG_FILE: path.join(home.dir, 'config'),
      AWS_SHARED_CREDENTIALS_FILE: path.join(home.dir, 'credentials'),
      AWS_ENDPOINT_URL_SSO: sso.url,
      AWS_ENDPOINT_URL_SSO_OIDC: sso.url,
    };
  });
  afterAll(async () => {
    await sso?.stop();
    await home?.cleanup();
  });

  it.each([
    ['an sso_session profile', 'dev', createHash('sha1').update('corp').digest('hex')],
    [
      'a legacy profile (sso_start_url in the profile)',
      'legacy',
      createHash('sha1').update('https://old.awsapps.com/start').digest('hex'),
    ],
  ])(
    '%s: the token equals `aws eks get-token --profile` byte for byte (the CLI finds its token in its cache)',
    async (_shape, profile, cacheName) => {
      // `aws sso login` needs a person at a browser; its result is a file in ~/.aws/sso/cache.
      await mkdir(path.join(home.dir, '.aws', 'sso', 'cache'), { recursive: true });
      const startUrl = profile === 'dev' ? 'https://corp.awsapps.com/start' : 'https://old.awsapps.com/start';
      const region = profile === 'dev' ? 'eu-central-1' : 'us-east-1';
      await writeFile(
        path.join(home.dir, '.aws', 'sso', 'cache', `${cacheName}.json`),
        JSON.stringify({ startUrl, region, accessToken: sso.issueToken(), expiresAt: '2030-01-01T00:00:00Z' }),
      );
      const { token: cliToken } = await awsEksGetToken({ profile, cluster: 'prod', region: 'eu-west-1', env });
      const clock = new FakeClock(AT);
      const credential = await eks(profile, sessionsFor(clock), clock).getCredential({
        profile: 'eks',
        cluster: undefined,
        interactive: false,
      });
      expect(credential.token).toBe(cliToken);
      expect(shown.at(-1)).toMatchObject({ profile: 'eks', kind: 'device', verificationUri: `${sso.url}/device` });
    },
  );

  it('sso on the profile itself (no aws files): the same role credentials; sso with awsProfile is refused', async () => {
    const clock = new FakeClock(Date.now());
    const settings = {
      name: 'eks',
      provider: 'eks',
      approval: 'never',
      clusterId: 'prod',
      region: 'eu-west-1',
      sso: {
        startUrl: 'https://corp.awsapps.com/start',
        region: 'eu-central-1',
        accountId: '111122223333',
        roleName: 'Operator',
      },
    } as EksProfileConfig;
    const provider = new EksProvider(settings, {
      store: () => Promise.reject(new Error('no store')),
      clock,
      env,
      sessions: sessionsFor(clock),
    });
    const credential = await provider.getCredential({ profile: 'eks', cluster: undefined, interactive: false });
    expect(
      new URL(Buffer.from(credential.token!.slice('k8s-aws-v1.'.length), 'base64url').toString()).searchParams.get(
        'X-Amz-Credential',
      ),
    ).toMatch(new RegExp(`^${OPS.accessKeyId}/`));
    const both = new EksProvider(
      { ...settings, awsProfile: 'dev' },
      { store: () => Promise.reject(new Error('no store')), clock, env, sessions: sessionsFor(clock) },
    );
    await expect(both.getCredential({ profile: 'eks', cluster: undefined, interactive: false })).rejects.toThrow(
      'profile "eks" sets both sso and awsProfile',
    );
  });

  it('50 callers of two roles in one SSO session: one device login, one GetRoleCredentials per role, 50 tokens', async () => {
    const clock = new FakeClock(Date.now());
    const sessions = sessionsFor(clock);
    const [authorizations, fetched] = [sso.counts.authorizations, sso.counts.roleCredentials];
    const providers = [eks('dev', sessions, clock, 'a'), eks('ops', sessions, clock, 'b')];
    const tokens = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        providers[i % 2]!.getCredential({ profile: `p${i % 2}`, cluster: undefined, interactive: false }),
      ),
    );
    expect(tokens).toHaveLength(50);
    expect([sso.counts.authorizations - authorizations, sso.counts.roleCredentials - fetched]).toEqual([1, 2]);
    const keyOf = (token: string) =>
      new URL(Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString()).searchParams
        .get('X-Amz-Credential')!
        .split('/')[0];
    expect(new Set(tokens.map((t) => keyOf(t.token!)))).toEqual(new Set([DEV.accessKeyId, OPS.accessKeyId]));
  });

  it('renews silently while the SSO login is held, even once the role keys are due; not after a logout', async () => {
    const clock = new FakeClock(Date.now());
    const sessions = sessionsFor(clock);
    // Keys due in 2 minutes: each token needs new role keys, which the held SSO login gets alone.
    sso.setRole('111122223333', 'Developer', DEV, Date.now() + 2 * 60_000);
    try {
      const provider = eks('dev', sessions, clock);
      expect(provider.canRefreshSilently()).toBe(false);
      await provider.getCredential({ profile: 'eks', cluster: undefined, interactive: false });
      expect(provider.canRefreshSilently()).toBe(true);
      await provider.logout('eks');
      expect(provider.canRefreshSilently()).toBe(false);
    } finally {
      sso.setRole('111122223333', 'Developer', DEV, Date.parse('2030-01-01T00:00:00Z'));
    }
  });

  it('an ended SSO session (the portal refuses the token): one new device login, then the role again', async () => {
    const clock = new FakeClock(Date.now());
    const sessions = sessionsFor(clock);
    // Keys due in 2 minutes: inside the 5-minute margin, so each call asks the portal again.
    sso.setRole('111122223333', 'Developer', DEV, Date.now() + 2 * 60_000);
    try {
      const before = sso.counts.authorizations;
      await eks('dev', sessions, clock).getCredential({ profile: 'eks', cluster: undefined, interactive: false });
      await eks('dev', sessions, clock).getCredential({ profile: 'eks', cluster: undefined, interactive: false });
      expect(sso.counts.authorizations - before).toBe(1);
      sso.endSessions();
      const credential = await eks('dev', sessions, clock).getCredential({
        profile: 'eks',
        cluster: undefined,
        interactive: false,
      });
      expect(credential.token).toMatch(/^k8s-aws-v1\./);
      expect(sso.counts.authorizations - before).toBe(2);
    } finally {
      sso.setRole('111122223333', 'Developer', DEV, Date.parse('2030-01-01T00:00:00Z'));
    }
  });

  it('a login nobody approves ends with what to do, naming the code', async () => {
    const quick = await startSsoStandIn({ expiresInSeconds: 2, intervalSeconds: 1 });
    try {
      const clock = new FakeClock(Date.now());
      const wall = { now: () => Date.now() } as FakeClock;
      const savedEnv = { ...env };
      env.AWS_ENDPOINT_URL_SSO = quick.url;
      env.AWS_ENDPOINT_URL_SSO_OIDC = quick.url;
      const refused = await eks('dev', sessionsFor(clock, wall, false), clock)
        .getCredential({ profile: 'eks-dev', cluster: undefined, interactive: false })
        .catch((error: Error & { hint?: string }) => error);
      Object.assign(env, savedEnv);
      expect(String(refused)).toMatch(
        /the IAM Identity Center login for https:\/\/corp\.awsapps\.com\/start was not approved in time \(code [0-9A-F]{4}-[0-9A-F]{4}\)/,
      );
      expect((refused as { hint?: string }).hint).toBe(
        'run kubecred login eks-dev and approve the code in the browser',
      );
    } finally {
      await quick.stop();
    }
  });
});

// Through a real broker: the device login reaches the caller's stderr (the shim prints the
// broker's interim notice) and the browser, and one approval serves every profile of the session.
describe.skipIf(!available)('an SSO eks profile served by the broker', () => {
  let home: TempHome;
  let sso: SsoStandIn;
  let broker: TestBroker;
  let browser: RecordingBrowser;
  const { cli } = callersFor(() => home.dir);

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    sso = await startSsoStandIn();
    sso.setRole('111122223333', 'Developer', DEV, Date.now() + 3_600_000);
    sso.setRole('111122223333', 'Operator', OPS, Date.now() + 3_600_000);
    await writeFile(
      path.join(home.dir, 'aws-config'),
      [
        '[sso-session corp]',
        'sso_start_url = https://corp.awsapps.com/start',
        'sso_region = eu-central-1',
        '[profile dev]',
        'sso_session = corp',
        'sso_account_id = 111122223333',
        'sso_role_name = Developer',
        '[profile ops]',
        'sso_session = corp',
        'sso_account_id = 111122223333',
        'sso_role_name = Operator',
        '',
      ].join('\n'),
    );
    await writeConfig(
      home.dir,
      'profiles:\n  - { name: eks-dev, provider: eks, clusterId: a, region: eu-west-1, awsProfile: dev }\n  - { name: eks-ops, provider: eks, clusterId: b, region: eu-west-1, awsProfile: ops }\n',
    );
    browser = await recordingBrowser(home.dir);
    broker = await startTestBroker(home.dir, {
      AWS_CONFIG_FILE: path.join(home.dir, 'aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: path.join(home.dir, 'none'),
      AWS_ENDPOINT_URL_SSO: sso.url,
      AWS_ENDPOINT_URL_SSO_OIDC: sso.url,
      KUBECRED_BROWSER: browser.command,
    });
  }, 60_000);

  afterAll(async () => {
    await broker?.stop();
    await sso?.stop();
    await home?.cleanup();
  });

  it("kubectl's stderr shows the code and page, the browser opens it; approved once, both roles are served", async () => {
    const child = spawn(NATIVE_SHIM, ['credential', 'eks-dev'], {
      env: { ...brokerEnv(home.dir), KUBERNETES_EXEC_INFO: V1_EXEC_INFO },
    });
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    const notice = /sign in to profile "eks-dev": open (\S+) and enter the code (\S+)/;
    await expect.poll(() => stderr, { timeout: 15_000 }).toMatch(notice);
    const [, page, code] = notice.exec(stderr)!;
    expect(page).toBe(`${sso.url}/device?user_code=${code}`);
    // The broker opened the page with the code in it; the person approves it there.
    const opened = await browser.target(0, 10_000);
    expect(opened).toBe(`${sso.url}/device?user_code=${code}`);
    expect((await fetch(opened)).ok).toBe(true);
    expect(await exited, stderr).toBe(0);
    const token = (JSON.parse(stdout) as { status: { token: string } }).status.token;
    expect(
      new URL(Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString()).searchParams.get(
        'X-Amz-Credential',
      ),
    ).toMatch(new RegExp(`^${DEV.accessKeyId}/`));
    const other = await run(NATIVE_SHIM, ['credential', 'eks-ops'], {
      env: { ...brokerEnv(home.dir), KUBERNETES_EXEC_INFO: V1_EXEC_INFO },
    });
    expect(other.code, other.stderr).toBe(0);
    expect(sso.counts.authorizations).toBe(1);
    expect(broker.output()).not.toContain(DEV.secretAccessKey);
  });

  it('the main window offers Log in on an SSO eks profile; pressing it runs one device login', async () => {
    expect((await cli(['logout', 'eks-dev'])).code).toBe(0);
    const status = JSON.parse((await cli(['status', '-o', 'json'])).stdout) as {
      profiles: Array<{ name: string; login?: boolean }>;
    };
    expect(status.profiles.map((p) => [p.name, p.login])).toEqual([
      ['eks-dev', true],
      ['eks-ops', true],
    ]);
    const before = sso.counts.authorizations;
    const chromium = await launchChromium({ width: 800, height: 600 });
    try {
      await chromium.page.goto((await cli(['ui', '--print'])).stdout.trim());
      await chromium.page.getByRole('link', { name: 'eks-dev' }).click();
      const login = chromium.page.getByRole('button', { name: 'Log in' });
      await login.waitFor();
      await mkdir(SHOTS, { recursive: true });
      await chromium.page.screenshot({ path: path.join(SHOTS, 'profile-eks-sso.png') });
      await login.click();
      // The window shows the code while it waits; the broker opened the page in the browser.
      await chromium.page
        .getByText(/enter the code|[0-9A-F]{4}-[0-9A-F]{4}/)
        .first()
        .waitFor();
      await chromium.page.screenshot({ path: path.join(SHOTS, 'profile-eks-sso-waiting.png') });
      expect((await fetch(await browser.target(1, 10_000))).ok).toBe(true);
      await expect
        .poll(
          async () =>
            (
              JSON.parse((await cli(['status', '-o', 'json'])).stdout) as {
                profiles: Array<{ name: string; state: string }>;
              }
            ).profiles.find((p) => p.name === 'eks-dev')?.state,
          { timeout: 15_000 },
        )
        .toBe('ready');
    } finally {
      await chromium.close();
    }
    expect(sso.counts.authorizations - before).toBe(1);
  });
});
