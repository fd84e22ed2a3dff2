import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eksToken, TOKEN_PREFIX } from '../../src/main/providers/eks/eksToken.js';
import { startTestBroker, writeConfig } from '../support/broker.js';
import { brokerSuccession } from '../support/brokerSuccession.js';
import { callersFor } from '../support/callers.js';
import { canRunCorporateProxy, startCorporateProxy, type CorporateProxy } from '../support/corporateProxy.js';
import { startInspectedMachine, type InspectedMachine } from '../support/inspectedMachine.js';
import { decryptedFlow, expectRootRefused, inspectingProxyCasesRun } from '../support/inspectingProxy.js';
import { proxyUrlWith } from '../support/issuerBehindProxy.js';
import type { KubectlResult } from '../support/kubectl.js';
import { createTestPki, type TestPki } from '../support/pki.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { recordedWhoami } from '../support/recordedWhoami.js';
import { assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { expectNoSecretIn, PrintedTexts, proxyPasswordForms } from '../support/secretAbsence.js';
import { writeShimKubeconfig } from '../support/shimKubeconfig.js';
import { startSsoStandIn, type SsoStandIn } from '../support/ssoStandIn.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';
import { startWebhookApiServer, type WebhookApiServer } from '../support/webhookApiServer.js';

// IAM Identity Center's two services, each a name of its own as AWS has them
// (oidc.<region>.amazonaws.com, portal.sso.<region>.amazonaws.com): the proxy's log tells the
// device login's calls from GetRoleCredentials. One stand-in serves both.
const OIDC_HOST = 'oidc.sso.kubecred.test';
const PORTAL_HOST = 'portal.sso.kubecred.test';
const ACCOUNT = '111122223333';
const ROLE_NAME = 'Developer';
const CLUSTER = 'prod';
// Who aws-iam-authenticator says the role's session is (STS's GetCallerIdentity for the role
// IAM Identity Center provisions in the account).
const ROLE_ARN = `arn:aws:sts::${ACCOUNT}:assumed-role/AWSReservedSSO_${ROLE_NAME}_5f1e2d3c4b5a6978/alice`;
// The keys GetRoleCredentials hands out, made for this run: the portal is the one place they come from.
const ROLE_KEYS = {
  accessKeyId: 'ASIASSOPROXYEXAMPLE1',
  secretAccessKey: `ssoProxySecret/${randomBytes(12).toString('hex')}`,
  sessionToken: `IQoJb3JpZ2luX2VjSsoProxy/${randomBytes(18).toString('base64url')}`,
};
// What must show nowhere of the role keys: the key id alone is no secret.
const ROLE_SECRETS = [ROLE_KEYS.secretAccessKey, ROLE_KEYS.sessionToken];
// The proxy's password (tinyproxy takes letters, digits and -._ only): it goes to the proxy, and nowhere else.
const PROXY_USER = 'frank';
const PROXY_PASSWORD = 'sso-egress.pw_6c1f';
// The stand-in's SSO access tokens: "aoa" and 24 random bytes, base64url.
const SSO_ACCESS_TOKEN = /aoa[A-Za-z0-9_-]{32}/;

/**
 * Who an EKS token names, as aws-iam-authenticator would have STS say: the token must be the
 * presigned GetCallerIdentity signed with the very keys the portal handed out for the role
 * (the signature recomputed with its secret key, the session token signed in), for this
 * cluster; then it is the role's session.
 */
function ssoRoleOf(token: string): { username: string } | undefined {
  if (!token.startsWith(TOKEN_PREFIX)) return undefined;
  const url = new URL(Buffer.from(token.slice(TOKEN_PREFIX.length), 'base64url').toString());
  const [keyId, , region] = url.searchParams.get('X-Amz-Credential')?.split('/') ?? [];
  const at = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(url.searchParams.get('X-Amz-Date') ?? '');
  if (keyId !== ROLE_KEYS.accessKeyId || !region || !at) return undefined;
  const [year, month, day, hour, minute, second] = at.slice(1).map(Number) as [number, ...number[]];
  const signed = eksToken({
    clusterId: CLUSTER,
    region,
    endpoint: new URL(`${url.origin}${url.pathname}`),
    credentials: ROLE_KEYS,
    now: Date.UTC(year, month! - 1, day, hour, minute, second),
  });
  return signed.token === token ? { username: ROLE_ARN } : undefined;
}

/**
 * Issue 43: an eks profile whose keys come from IAM Identity Center (SSO), behind a company's
 * proxy. The broker runs the device login (RegisterClient, StartDeviceAuthorization,
 * CreateToken) and GetRoleCredentials against the SSO stand-in over TLS, whose names resolve
 * for the proxy only: through the proxy's tunnel or not at all. Judged by `kubectl auth
 * whoami` against a real kube-apiserver whose token webhook accepts a token signed with the
 * role keys the portal handed out, by the stand-in's counts, and by the proxy's log.
 */
describe.runIf(canRunCorporateProxy())('EKS via IAM Identity Center (SSO) behind a corporate proxy', () => {
  let home: TempHome;
  let pki: TestPki;
  let sso: SsoStandIn;
  let cluster: WebhookApiServer;
  let browser: RecordingBrowser;
  let kubeconfig: string;
  let ssoPort: string;
  /** A fresh broker knows no SSO login: each case logs in from the start. */
  const brokers = brokerSuccession(() => home.dir);
  /** Everything kubectl and curl printed, to look for secrets in. */
  const printed = new PrintedTexts();
  const { cli } = callersFor(() => home.dir);

  /** The broker's environment as the person's session has it: their AWS files, AWS's SSO endpoints, their browser. */
  const awsEnv = () => ({
    AWS_CONFIG_FILE: path.join(home.dir, 'aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: path.join(home.dir, 'no-aws-credentials'),
    AWS_ENDPOINT_URL_SSO_OIDC: `https://${OIDC_HOST}:${ssoPort}`,
    AWS_ENDPOINT_URL_SSO: `https://${PORTAL_HOST}:${ssoPort}`,
    KUBECRED_BROWSER: browser.command,
  });
  const whoami = recordedWhoami(printed, () => ({ home: home.dir, kubeconfig }));
  /**
   * kubectl auth whoami while the person approves the device login in their browser, which
   * goes through the same proxy (`curl`: how it reaches the page and trusts it).
   */
  async function whoamiApproving(curl: readonly string[]): Promise<{ answer: KubectlResult; page: URL }> {
    const opened = (await browser.opened()).length;
    const answer = whoami();
    const page = new URL(
      await Promise.race([
        browser.target(opened, 30_000),
        answer.then((early) => {
          throw new Error(`kubectl ended before the broker opened the device page: ${early.stderr}`);
        }),
      ]),
    );
    const approved = printed.keep(await run('curl', ['-sS', '--fail', '--max-time', '20', ...curl, page.href]));
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toBe('Request approved');
    return { answer: await answer, page };
  }

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    pki = await createTestPki(path.join(home.dir, 'pki'), [OIDC_HOST, PORTAL_HOST]);
    sso = await startSsoStandIn({ tls: { certPem: pki.serverCertPem, keyPem: pki.serverKeyPem } });
    sso.setRole(ACCOUNT, ROLE_NAME, ROLE_KEYS, Date.now() + 3_600_000);
    ssoPort = new URL(sso.url).port;
    // The person's aws config, as `aws configure sso` writes it.
    await writeFile(
      path.join(home.dir, 'aws-config'),
      [
        '[sso-session corp]',
        'sso_start_url = https://corp.awsapps.com/start',
        'sso_region = eu-central-1',
        'sso_registration_scopes = sso:account:access',
        '[profile dev]',
        'sso_session = corp',
        `sso_account_id = ${ACCOUNT}`,
        `sso_role_name = ${ROLE_NAME}`,
        '',
      ].join('\n'),
    );
    cluster = await startWebhookApiServer(home.dir, pki, ssoRoleOf);
    await writeConfig(
      home.dir,
      `profiles:\n  - { name: eks, provider: eks, clusterId: ${CLUSTER}, region: eu-west-1, awsProfile: dev }\n`,
    );
    kubeconfig = await writeShimKubeconfig(
      path.join(home.dir, 'eks.kubeconfig'),
      cluster.api,
      'eks',
      'client.authentication.k8s.io/v1beta1',
    );
    browser = await recordingBrowser(home.dir);
  }, 300_000);

  afterAll(async () => {
    await brokers.stop();
    await cli(['stop']);
    await cluster?.stop();
    await sso?.stop();
    await home?.cleanup();
  });

  it('without a proxy IAM Identity Center cannot be reached: nothing passes by going around it', async () => {
    await brokers.next(() => startTestBroker(home.dir, { ...awsEnv(), SSL_CERT_FILE: pki.caCertPath }));
    const direct = await whoami();
    expect(direct.code).not.toBe(0);
    expect(direct.stderr).toContain(`IAM Identity Center at https://${OIDC_HOST}:${ssoPort} did not answer (ENOTFOUND`);
    expect(direct.stderr).toContain('direct (no HTTPS_PROXY set)');
    expect(sso.counts).toEqual({ authorizations: 0, roleCredentials: 0 });
    expect(await browser.opened()).toEqual([]);
    expect(cluster.webhook.reviews).toBe(0);
  }, 120_000);

  describe('behind tinyproxy with Basic auth', () => {
    let proxy: CorporateProxy;

    beforeAll(async () => {
      proxy = await startCorporateProxy({
        dir: path.join(home.dir, 'proxy'),
        hosts: { [OIDC_HOST]: '127.0.0.1', [PORTAL_HOST]: '127.0.0.1' },
        basicAuth: { user: PROXY_USER, password: PROXY_PASSWORD },
      });
    }, 60_000);

    afterAll(async () => {
      await proxy?.stop();
    });

    it('the device login and GetRoleCredentials go through the proxy, and kubectl is the SSO role', async () => {
      // The machine's trust, as a company installs its root: here the test CA is the bundle.
      await brokers.next(() =>
        startTestBroker(home.dir, {
          ...awsEnv(),
          SSL_CERT_FILE: pki.caCertPath,
          HTTPS_PROXY: proxyUrlWith(proxy, PROXY_USER, PROXY_PASSWORD),
        }),
      );
      const before = { ...sso.counts };
      const { answer, page } = await whoamiApproving([
        '--proxy',
        proxy.url,
        '--proxy-user',
        `${PROXY_USER}:${PROXY_PASSWORD}`,
        '--cacert',
        pki.caCertPath,
      ]);
      expect(answer.code, answer.stderr).toBe(0);
      expect(answer.stdout).toBe(ROLE_ARN);
      // The person saw the code on kubectl's stderr, and the page the broker opened carries it.
      expect(page.origin).toBe(`https://${OIDC_HOST}:${ssoPort}`);
      const code = page.searchParams.get('user_code');
      expect(answer.stderr).toContain(`sign in to profile "eks": open ${page.href} and enter the code ${code}`);
      // One device login, one GetRoleCredentials: both served by the stand-in, so both came through the proxy.
      expect(sso.counts).toEqual({
        authorizations: before.authorizations + 1,
        roleCredentials: before.roleCredentials + 1,
      });
      // The proxy tunnelled to both services; only the broker asks the portal (the browser opens a page of SSO-OIDC's).
      const log = await proxy.log();
      expect(log).toContain(`CONNECT ${OIDC_HOST}:${ssoPort}`);
      expect(log).toContain(`CONNECT ${PORTAL_HOST}:${ssoPort}`);
    }, 120_000);

    it('no secret in any output or log: the proxy password, the role keys, the SSO access token, the EKS token', async () => {
      const logs = await brokers.logs();
      expect(logs).toContain('broker listening');
      expectNoSecretIn(
        [...printed.all, logs],
        [...proxyPasswordForms(PROXY_PASSWORD), ...ROLE_SECRETS, SSO_ACCESS_TOKEN, TOKEN_PREFIX],
      );
    });
  });

  describe.runIf(inspectingProxyCasesRun())(
    'behind a TLS-inspecting proxy (mitmproxy), its root in the OS store only',
    () => {
      let inspected: InspectedMachine;
      const nextBroker = (rootInOsStore: boolean) =>
        brokers.next(() =>
          inspected.startBroker(home.dir, { proxy: inspected.proxy.url, rootInOsStore, env: awsEnv() }),
        );

      beforeAll(async () => {
        inspected = await startInspectedMachine(home.dir, {
          hosts: [OIDC_HOST, PORTAL_HOST],
          // The proxy trusts the stand-in's CA, as a company's proxy trusts AWS's; the broker never sees it.
          upstreamCaFiles: [pki.caCertPath],
        });
      }, 120_000);

      afterAll(async () => {
        await inspected?.stop();
      });

      it("a broker whose OS store lacks the proxy's root: refused, the proxy and the root named; nothing decrypted", async () => {
        await nextBroker(false);
        const before = { ...sso.counts };
        const refused = await whoami();
        expect(refused.code).not.toBe(0);
        expect(refused.stderr).toContain(`IAM Identity Center at https://${OIDC_HOST}:${ssoPort} did not answer`);
        expect(refused.stderr).toContain(`through the proxy ${inspected.proxy.url} (from HTTPS_PROXY)`);
        expect(refused.stderr).toContain('TLS-inspecting proxy re-signs the sites it passes with its own root');
        expect(sso.counts).toEqual(before);
        // The proxy's side: the broker turned its certificate down, and nothing was decrypted.
        const { log } = await expectRootRefused(inspected.proxy, OIDC_HOST);
        expect(log).not.toContain(`https://${PORTAL_HOST}`);
      }, 120_000);

      it('with the root in the OS store: the proxy reads every SSO call, and kubectl is the SSO role', async () => {
        await nextBroker(true);
        const before = { ...sso.counts };
        const { answer } = await whoamiApproving([
          '--proxy',
          inspected.proxy.url,
          '--cacert',
          inspected.proxy.caCertPath,
        ]);
        expect(answer.code, answer.stderr).toBe(0);
        expect(answer.stdout).toBe(ROLE_ARN);
        expect(sso.counts).toEqual({
          authorizations: before.authorizations + 1,
          roleCredentials: before.roleCredentials + 1,
        });
        // mitmproxy decrypted the broker's calls, by path: the device login, then the portal's
        // GetRoleCredentials for this account and role (which only the broker makes).
        const log = await inspected.proxy.log();
        const oidc = `https://${OIDC_HOST}:${ssoPort}`;
        for (const call of ['client/register', 'device_authorization', 'token'])
          expect(log).toMatch(decryptedFlow('POST', `${oidc}/${call}`));
        expect(log).toMatch(
          decryptedFlow(
            'GET',
            `https://${PORTAL_HOST}:${ssoPort}/federation/credentials?account_id=${ACCOUNT}&role_name=${ROLE_NAME}`,
          ),
        );
      }, 120_000);

      it('no secret in any output or log of the broker (the proxy itself reads them: that is what inspecting is)', async () => {
        expectNoSecretIn([...printed.all, await brokers.logs()], [...ROLE_SECRETS, SSO_ACCESS_TOKEN, TOKEN_PREFIX]);
      });
    },
  );
});
