import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { canRunCorporateProxy, startCorporateProxy, type CorporateProxy } from '../support/corporateProxy.js';
import { proxyUrlWith } from '../support/issuerBehindProxy.js';
import { startKubeApiServer, type KubeApiServer } from '../support/kubeApiServer.js';
import { writeExecKubeconfig } from '../support/kubeconfig.js';
import { newestKubectl, runKubectl, WHOAMI_ARGS } from '../support/kubectl.js';
import { assumedRoleOf, startMotoSts, writeAwsFiles, type MotoSts } from '../support/motoSts.js';
import { createTestPki } from '../support/pki.js';
import { NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';
import { startTokenWebhook, type TokenWebhook } from '../support/tokenWebhook.js';

const STS_HOST = 'sts.kubecred.test';
const ROLE = 'arn:aws:iam::123456789012:role/deployer';
// The proxy's password (tinyproxy takes letters, digits and -._ only): it goes to the proxy, and nowhere else.
const PROXY_USER = 'erin';
const PROXY_PASSWORD = 'sts-egress.pw_2b7d';

/**
 * Issue 43: an eks profile that assumes a role, behind a company's proxy. STS (moto, behind TLS
 * as STS is) has a name that resolves for the proxy only, so the broker's AssumeRole reaches it
 * through the proxy's tunnel or not at all. Judged by `kubectl auth whoami` against a real
 * kube-apiserver whose token webhook names the role of the session moto handed out, and by
 * the proxy's log.
 */
describe.runIf(canRunCorporateProxy())('EKS (STS AssumeRole) behind a corporate proxy (tinyproxy, Basic auth)', () => {
  let home: TempHome;
  let moto: MotoSts;
  let proxy: CorporateProxy;
  let api: KubeApiServer;
  let webhook: TokenWebhook;
  let kubeconfig: string;
  let broker: TestBroker | undefined;
  const { cli } = callersFor(() => home.dir);
  const kubectl = newestKubectl();
  const whoami = () => runKubectl(kubectl.path, [...WHOAMI_ARGS], { kubeconfig, env: brokerEnv(home.dir) });
  /** The broker as the person's session starts it: their AWS files, the machine's trust, these proxy settings. */
  async function brokerWith(proxyEnv: Record<string, string>): Promise<void> {
    await broker?.stop();
    broker = await startTestBroker(home.dir, {
      AWS_CONFIG_FILE: path.join(home.dir, 'aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: path.join(home.dir, 'aws-credentials'),
      // The machine's trust, as a company installs its root: here the test CA is the bundle.
      SSL_CERT_FILE: path.join(home.dir, 'pki', 'ca.crt'),
      ...proxyEnv,
    });
  }

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    const pki = await createTestPki(path.join(home.dir, 'pki'), [STS_HOST]);
    moto = await startMotoSts({ tls: { certPem: pki.serverCertPem, keyPem: pki.serverKeyPem } });
    await writeAwsFiles(
      home.dir,
      moto,
      [ROLE],
      `[profile deployer]\nrole_arn = ${ROLE}\nsource_profile = alice\nrole_session_name = alice\n`,
    );
    proxy = await startCorporateProxy({
      dir: path.join(home.dir, 'proxy'),
      hosts: { [STS_HOST]: '127.0.0.1' },
      basicAuth: { user: PROXY_USER, password: PROXY_PASSWORD },
    });
    webhook = await startTokenWebhook(home.dir, pki, (token) => assumedRoleOf(moto, token));
    api = await startKubeApiServer({
      dir: path.join(home.dir, 'apiserver'),
      pki,
      tokenWebhookConfig: webhook.configFile,
    });
    const stsEndpoint = moto.url.replace('127.0.0.1', STS_HOST);
    await writeConfig(
      home.dir,
      `profiles:\n  - { name: eks, provider: eks, clusterId: prod, region: eu-west-1, awsProfile: deployer, stsEndpoint: "${stsEndpoint}" }\n`,
    );
    kubeconfig = await writeExecKubeconfig({
      path: path.join(home.dir, 'eks.kubeconfig'),
      server: api.url,
      caPem: api.caPem,
      command: NATIVE_SHIM,
      args: ['credential', 'eks'],
      apiVersion: 'client.authentication.k8s.io/v1beta1',
    });
  }, 180_000);

  afterAll(async () => {
    await broker?.stop();
    await cli(['stop']);
    await api?.stop();
    await webhook?.close();
    await proxy?.stop();
    await moto?.stop();
    await home?.cleanup();
  });

  it('without the proxy STS cannot be reached: nothing passes by going around it', async () => {
    await brokerWith({});
    const direct = await whoami();
    expect(direct.code).not.toBe(0);
    expect(direct.stderr).toContain('ENOTFOUND: the host name does not resolve, direct (no HTTPS_PROXY set)');
    expect(moto.count('AssumeRole')).toBe(0);
  }, 120_000);

  it('through the proxy the role is assumed, and kubectl is that role', async () => {
    await brokerWith({ HTTPS_PROXY: proxyUrlWith(proxy, PROXY_USER, PROXY_PASSWORD) });
    const served = await whoami();
    expect(served.code, served.stderr).toBe(0);
    expect(served.stdout).toMatch(/^arn:aws:sts::123456789012:assumed-role\/deployer\/alice$/);
    expect(moto.count('AssumeRole')).toBe(1);
    expect(await proxy.log()).toContain(`CONNECT ${STS_HOST}:${new URL(moto.url).port}`);
    const daemonLog = await readFile(path.join(home.dir, 'state', 'daemon.log'), 'utf8').catch(() => '');
    for (const text of [served.stdout, served.stderr, daemonLog, broker?.output() ?? '']) {
      expect(text).not.toContain(PROXY_PASSWORD);
      expect(text).not.toContain(encodeURIComponent(PROXY_PASSWORD));
    }
  }, 120_000);
});
