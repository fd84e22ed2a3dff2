import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { freePort } from '../../src/main/platform/freePort.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { startKubeApiServer, type KubeApiServer } from '../support/kubeApiServer.js';
import { writeExecKubeconfig } from '../support/kubeconfig.js';
import { newestKubectl, runKubectl, WHOAMI_ARGS } from '../support/kubectl.js';
import { assumedRoleOf, startMotoSts, writeAwsFiles, type MotoSts } from '../support/motoSts.js';
import { rawExchange } from '../support/rawSocket.js';
import { createTestPki } from '../support/pki.js';
import { recordingBrowser } from '../support/recordingBrowser.js';
import { NATIVE_SHIM, REPO_ROOT, assertBuilt } from '../support/repo.js';
import { seriousAxeViolations } from '../support/axe.js';
import { launchChromium } from '../support/chromium.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';
import { run } from '../support/run.js';
import { KUBECRED_CLI } from '../support/repo.js';
import { startTokenWebhook, type TokenWebhook } from '../support/tokenWebhook.js';
import { webUiClient, type WebUiClient } from '../support/webUiClient.js';

const ROLE = 'arn:aws:iam::123456789012:role/admin';
const MFA = 'arn:aws:iam::123456789012:mfa/alice';
const CODE = '246810';
const CALLERS = 50;
const SHOTS = process.env.KUBECRED_SHOTS ?? path.join(REPO_ROOT, 'test-results', 'screenshots');

const tools = await execa('sh', ['-c', 'command -v moto_server'], { reject: false });
const available = tools.exitCode === 0 || process.env.CI === 'true';

// Issue 17: 50 kubectl at once through the broker, an eks profile that assumes a role with
// MFA. moto is STS; the webhook stands where aws-iam-authenticator runs on EKS. It cannot ask
// STS about the token (moto does not serve presigned GetCallerIdentity), so it accepts a
// token signed with session keys moto handed out, and names that session's role.
describe.skipIf(!available)('50 kubectl, an eks profile with a role and MFA, one broker', () => {
  let home: TempHome;
  let moto: MotoSts;
  let api: KubeApiServer;
  let webhook: TokenWebhook;
  let broker: TestBroker;
  let ui: WebUiClient;
  const kubeconfigs: string[] = [];
  const { cli } = callersFor(() => home.dir);
  const kubectl = newestKubectl();

  /** The window's pending questions, once there is one (30 s at most). */
  async function promptsWhenAsked() {
    let prompts = await ui.prompts();
    for (
      const deadline = Date.now() + 30_000;
      prompts.length === 0 && Date.now() < deadline;
      prompts = await ui.prompts()
    )
      await new Promise((resolve) => setTimeout(resolve, 100));
    return prompts;
  }

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    moto = await startMotoSts();
    await writeAwsFiles(
      home.dir,
      moto,
      [ROLE],
      `[profile admin]\nrole_arn = ${ROLE}\nsource_profile = alice\nmfa_serial = ${MFA}\nrole_session_name = alice\n[profile ops]\nrole_arn = ${ROLE}\nsource_profile = alice\nrole_session_name = ops\n`,
    );
    const pki = await createTestPki(path.join(home.dir, 'pki'));
    webhook = await startTokenWebhook(home.dir, pki, (token) => assumedRoleOf(moto, token));
    api = await startKubeApiServer({
      dir: path.join(home.dir, 'apiserver'),
      pki,
      tokenWebhookConfig: webhook.configFile,
    });
    const profile = (name: string, cluster: string) =>
      `  - { name: ${name}, provider: eks, clusterId: ${cluster}, region: eu-west-1, awsProfile: admin, stsEndpoint: "${moto.url}" }`;
    await writeConfig(home.dir, `profiles:\n${profile('eks-prod', 'prod')}\n${profile('eks-staging', 'staging')}\n`);
    const browser = await recordingBrowser(home.dir);
    broker = await startTestBroker(
      home.dir,
      {
        AWS_CONFIG_FILE: path.join(home.dir, 'aws-config'),
        AWS_SHARED_CREDENTIALS_FILE: path.join(home.dir, 'aws-credentials'),
        KUBECRED_BROWSER: browser.command,
      },
      ['--ui'],
    );
    ui = await webUiClient(await browser.target(0, 10_000));
    for (const name of ['eks-prod', 'eks-staging']) {
      kubeconfigs.push(
        await writeExecKubeconfig({
          path: path.join(home.dir, `${name}.kubeconfig`),
          server: api.url,
          caPem: api.caPem,
          command: NATIVE_SHIM,
          args: ['credential', name],
          apiVersion: 'client.authentication.k8s.io/v1beta1',
          env: { KUBECRED_HOME: home.dir },
          provideClusterInfo: true,
        }),
      );
    }
  }, 180_000);

  afterAll(async () => {
    await broker?.stop();
    await api?.stop();
    await webhook?.close();
    await moto?.stop();
    await home?.cleanup();
  });

  it('one MFA question in the window, naming the role and kubectl; one AssumeRole; all 50 are the role', async () => {
    const assumedBefore = moto.count('AssumeRole');
    const callers = Array.from({ length: CALLERS }, (_, i) =>
      runKubectl(kubectl.path, [...WHOAMI_ARGS], {
        kubeconfig: kubeconfigs[i % 2]!,
        env: brokerEnv(home.dir),
      }),
    );
    const prompts = await promptsWhenAsked();
    expect(prompts).toHaveLength(1);
    const [prompt] = prompts;
    expect(prompt).toMatchObject({
      kind: 'form',
      title: expect.stringMatching(
        new RegExp(
          `^MFA code for role admin in account 123456789012, asked by ${path.basename(kubectl.path).replace(/\./g, '\\.')} \\(pid \\d+\\)$`,
        ),
      ),
    });
    expect(prompt!.kind === 'form' && prompt!.fields).toEqual([
      { name: 'mfaCode', label: `Code from MFA device ${MFA}`, secret: true },
    ]);
    // Everyone else waits on the same question: still one after a moment.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await ui.prompts()).toHaveLength(1);
    // Answered as a person would: in the main window's dialog, the code typed and Enter.
    const chromium = await launchChromium({ width: 800, height: 600 });
    try {
      await chromium.page.goto((await cli(['ui', '--print'])).stdout.trim());
      const dialog = chromium.page.getByRole('dialog', { name: /MFA code for role/ });
      await dialog.waitFor();
      const field = dialog.getByLabel(`Code from MFA device ${MFA}`);
      expect(await field.getAttribute('type')).toBe('password');
      await mkdir(SHOTS, { recursive: true });
      await chromium.page.screenshot({ path: path.join(SHOTS, 'prompt-mfa-light.png') });
      expect(await seriousAxeViolations(chromium.page)).toEqual([]);
      await field.fill(CODE);
      await field.press('Enter');
      await dialog.waitFor({ state: 'detached' });
      await Promise.all(callers);
      // Round 4, N28: the ready profile names the identity STS gave, as kubectl auth whoami does.
      await chromium.page.goto(`${new URL(chromium.page.url()).origin}/#/profile/eks-prod`);
      const signedInAs = chromium.page.locator('section[aria-label="profile eks-prod"] [data-fact="Signed in as"]');
      await expect
        .poll(() => signedInAs.innerText().catch(() => ''), { timeout: 10_000 })
        .toBe('arn:aws:sts::123456789012:assumed-role/admin/alice');
      await chromium.page.screenshot({ path: path.join(SHOTS, 'webui-eks-signed-in-as.png') });
    } finally {
      await chromium.close();
    }
    const results = await Promise.all(callers);
    for (const result of results)
      expect([result.code, result.stdout], result.stderr).toEqual([
        0,
        `arn:aws:sts::123456789012:assumed-role/admin/alice`,
      ]);
    expect(moto.count('AssumeRole') - assumedBefore).toBe(1);
    expect(
      moto.calls
        .filter((c) => c.action === 'AssumeRole')
        .at(-1)!
        .params.get('TokenCode'),
    ).toBe(CODE);
    expect(broker.output()).not.toContain(CODE);
  });

  it('kubecred logout forgets the session: the next kubectl asks for a new code', async () => {
    const assumedBefore = moto.count('AssumeRole');
    const logout = await cli(['logout', 'eks-prod']);
    expect(logout.code, logout.stderr).toBe(0);
    const caller = runKubectl(kubectl.path, [...WHOAMI_ARGS], {
      kubeconfig: kubeconfigs[0]!,
      env: brokerEnv(home.dir),
    });
    const prompts = await promptsWhenAsked();
    expect(prompts).toHaveLength(1);
    expect(await ui.answer(prompts[0]!.id, { kind: 'form', values: { mfaCode: '135790' } })).toBe(200);
    const result = await caller;
    expect(result.code, result.stderr).toBe(0);
    expect(moto.count('AssumeRole') - assumedBefore).toBe(1);
  });

  it('a cancelled question: kubectl fails saying the code was not given, and STS is not asked', async () => {
    await cli(['logout', 'eks-staging']);
    const assumedBefore = moto.count('AssumeRole');
    const caller = runKubectl(kubectl.path, ['get', '--raw', '/version'], {
      kubeconfig: kubeconfigs[1]!,
      env: brokerEnv(home.dir),
    });
    const prompts = await promptsWhenAsked();
    expect(await ui.answer(prompts[0]!.id, { kind: 'cancel' })).toBe(200);
    const result = await caller;
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('the MFA code for role admin in account 123456789012 was not given');
    expect(moto.count('AssumeRole')).toBe(assumedBefore);
  });

  it('kubecred import turns an `aws eks get-token` exec block into an eks profile that gives kubectl the same identity', async () => {
    const awsFiles = {
      AWS_CONFIG_FILE: path.join(home.dir, 'aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: path.join(home.dir, 'aws-credentials'),
    };
    const aws = (await execa('sh', ['-c', 'command -v aws'])).stdout.trim();
    const kubeconfig = await writeExecKubeconfig({
      path: path.join(home.dir, 'aws.kubeconfig'),
      server: api.url,
      caPem: api.caPem,
      command: aws,
      args: ['--region', 'eu-west-1', 'eks', 'get-token', '--cluster-name', 'prod', '--output', 'json'],
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      env: { AWS_PROFILE: 'ops', AWS_ENDPOINT_URL_STS: moto.url },
    });
    // HOME: the CLI keeps assumed roles in ~/.aws/cli/cache, which must not outlive this moto.
    const whoami = () =>
      runKubectl(kubectl.path, [...WHOAMI_ARGS], {
        kubeconfig,
        env: { ...brokerEnv(home.dir), ...awsFiles, HOME: home.dir },
      });
    // Before: the aws CLI itself is the plugin.
    const before = await whoami();
    expect([before.code, before.stdout], before.stderr).toEqual([
      0,
      'arn:aws:sts::123456789012:assumed-role/admin/ops',
    ]);

    const imported = await run(process.execPath, [KUBECRED_CLI, 'import'], {
      env: { ...brokerEnv(home.dir), KUBECONFIG: kubeconfig },
    });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain(
      'this was aws eks get-token: Kubecred now makes the same tokens itself from AWS profile "ops"',
    );
    const profiles = JSON.parse((await cli(['profile', 'list', '-o', 'json'])).stdout) as Array<{
      name: string;
      provider: string;
    }>;
    expect(
      profiles.find((p) => p.provider === 'eks' && p.name !== 'eks-prod' && p.name !== 'eks-staging'),
    ).toBeDefined();

    // After: kubectl runs Kubecred's shim, with the same identity; the aws CLI is not run.
    const assumedBefore = moto.count('AssumeRole');
    const after = await runKubectl(kubectl.path, [...WHOAMI_ARGS], {
      kubeconfig,
      env: { ...brokerEnv(home.dir), PATH: '/usr/bin:/bin' },
    });
    expect([after.code, after.stdout], after.stderr).toEqual([0, before.stdout]);
    expect(moto.count('AssumeRole') - assumedBefore).toBe(1);
  });

  // Issue 33: the imported eks profile through kubecred-proxy: the cluster sees the same role,
  // and the EKS token stays with the broker and the proxy.
  it('the eks profile through the exec proxy: the same role, and no token in the kubeconfig', async () => {
    const kubeconfig = path.join(home.dir, 'aws.kubeconfig');
    const configFile = path.join(home.dir, 'config.yaml');
    const config = parseYaml(await readFile(configFile, 'utf8')) as {
      profiles: Array<{ name: string; provider: string; proxy?: object }>;
    };
    const imported = config.profiles.find(
      (p) => p.provider === 'eks' && !['eks-prod', 'eks-staging'].includes(p.name),
    )!;
    imported.proxy = { port: await freePort(), server: api.url, caFile: api.caFile };
    await writeFile(configFile, stringifyYaml(config));
    const installed = await cli([
      'install',
      '--profile',
      imported.name,
      '--context',
      'stand-in',
      '--kubeconfig',
      kubeconfig,
    ]);
    expect(installed.code, installed.stderr).toBe(0);
    const through = await runKubectl(kubectl.path, [...WHOAMI_ARGS], {
      kubeconfig,
      env: { ...brokerEnv(home.dir), PATH: '/usr/bin:/bin' },
    });
    expect([through.code, through.stdout], through.stderr).toEqual([
      0,
      'arn:aws:sts::123456789012:assumed-role/admin/ops',
    ]);
    const text = await readFile(kubeconfig, 'utf8');
    expect(text).not.toContain('k8s-aws-v1.');
    expect(text).toContain('https://127.0.0.1:');
  });
});

// Issue 17: with no window to ask in, a kubectl in a terminal is asked there (the native shim
// hands the call to the kubecred CLI), and the code serves every profile of the session.
describe.skipIf(!available)("an MFA code typed in kubectl's terminal, the broker without a window", () => {
  let home: TempHome;
  let moto: MotoSts;
  let broker: TestBroker;
  const { credential } = callersFor(() => home.dir);

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    moto = await startMotoSts();
    await writeAwsFiles(
      home.dir,
      moto,
      [ROLE],
      `[profile admin]\nrole_arn = ${ROLE}\nsource_profile = alice\nmfa_serial = ${MFA}\n`,
    );
    const profile = (name: string, cluster: string) =>
      `  - { name: ${name}, provider: eks, clusterId: ${cluster}, region: eu-west-1, awsProfile: admin, stsEndpoint: "${moto.url}" }`;
    await writeConfig(home.dir, `profiles:\n${profile('eks-a', 'a')}\n${profile('eks-b', 'b')}\n`);
    broker = await startTestBroker(home.dir, {
      AWS_CONFIG_FILE: path.join(home.dir, 'aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: path.join(home.dir, 'aws-credentials'),
    });
  }, 60_000);

  afterAll(async () => {
    await broker?.stop();
    await moto?.stop();
    await home?.cleanup();
  });

  it('without a terminal: the error says where the code can be typed, and STS is not asked', async () => {
    const answer = await credential('eks-a');
    expect(answer.code).toBe(1);
    expect(answer.stderr).toContain(
      `profile "eks-a" needs a code from MFA device ${MFA} and there is no window to ask in`,
    );
    expect(answer.stderr).toContain('Run the command in a terminal, or open the Kubecred window (kubecred ui)');
    expect(moto.count('AssumeRole')).toBe(0);
  });

  it('in a terminal: asked once, hidden; the code opens the session, and another profile of it is served without asking', async () => {
    // A real pseudo-terminal (util-linux script); the code is typed once the prompt is up.
    const typed = `(sleep 2; printf '%s\\r' "$KC_TYPED_CODE") | script -q -e -c "${NATIVE_SHIM} credential eks-a" /dev/null`;
    const session = await run('bash', ['-c', typed], {
      env: {
        ...brokerEnv(home.dir),
        KUBERNETES_EXEC_INFO: JSON.stringify({
          apiVersion: 'client.authentication.k8s.io/v1',
          kind: 'ExecCredential',
          spec: { interactive: true },
        }),
        KC_TYPED_CODE: CODE,
      },
    });
    expect(session.code, session.stdout).toBe(0);
    expect(session.stdout).toContain(
      'Kubecred: MFA code for profile eks-a (one code serves every cluster for the session) (input hidden)',
    );
    expect(session.stdout).not.toContain(CODE);
    expect(JSON.parse(session.stdout.slice(session.stdout.indexOf('{"apiVersion"')).trim()).status.token).toMatch(
      /^k8s-aws-v1\./,
    );
    expect(moto.calls.filter((c) => c.action === 'AssumeRole').map((c) => c.params.get('TokenCode'))).toEqual([CODE]);
    const other = await credential('eks-b');
    expect(other.code, other.stderr).toBe(0);
    expect(moto.count('AssumeRole')).toBe(1);
  });

  it.each([
    ['a code that is not six digits', 'eks-a', { code: '12345x' }, 400, 'an MFA code is six digits'],
    ['no code', 'eks-a', {}, 400, 'code'],
    ['an unknown profile', 'nope', { code: '123456' }, 404, '"code":"unknown-profile"'],
  ])(
    'a lying client on /v1/profiles/:name/mfa, %s: a JSON error, no STS call',
    async (_name, profile, body, status, words) => {
      const secret = (await readFile(path.join(home.dir, 'run', 'client-secret'), 'utf8')).trim();
      const text = JSON.stringify(body);
      const assumed = moto.count('AssumeRole');
      const answer = await rawExchange(
        broker.socket,
        `POST /v1/profiles/${profile}/mfa HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\nAccept: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
        { endAfterWrite: false },
      );
      expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status}`));
      expect(answer, answer).toContain(words);
      expect(moto.count('AssumeRole')).toBe(assumed);
    },
  );
});
