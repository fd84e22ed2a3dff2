import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, readDaemonLog, startTestBroker, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { canRunCorporateProxy, startCorporateProxy, type CorporateProxy } from '../support/corporateProxy.js';
import { startEksRoleWorld, type EksRoleWorld } from '../support/eksRoleWorld.js';
import { proxyUrlWith } from '../support/issuerBehindProxy.js';
import { newestKubectl, runKubectl, WHOAMI_ARGS } from '../support/kubectl.js';
import { assertBuilt } from '../support/repo.js';
import { expectNoSecretIn, proxyPasswordForms } from '../support/secretAbsence.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

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
  let world: EksRoleWorld;
  let proxy: CorporateProxy;
  let broker: TestBroker | undefined;
  const { cli } = callersFor(() => home.dir);
  const kubectl = newestKubectl();
  const whoami = () =>
    runKubectl(kubectl.path, [...WHOAMI_ARGS], { kubeconfig: world.kubeconfig, env: brokerEnv(home.dir) });
  /** The broker as the person's session starts it: their AWS files, the machine's trust, these proxy settings. */
  async function brokerWith(proxyEnv: Record<string, string>): Promise<void> {
    await broker?.stop();
    broker = await startTestBroker(home.dir, {
      ...world.awsEnv,
      // The machine's trust, as a company installs its root: here the test CA is the bundle.
      SSL_CERT_FILE: world.pki.caCertPath,
      ...proxyEnv,
    });
  }

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    world = await startEksRoleWorld(home.dir, { stsHost: STS_HOST, role: ROLE });
    proxy = await startCorporateProxy({
      dir: path.join(home.dir, 'proxy'),
      hosts: { [STS_HOST]: '127.0.0.1' },
      basicAuth: { user: PROXY_USER, password: PROXY_PASSWORD },
    });
  }, 180_000);

  afterAll(async () => {
    await broker?.stop();
    await cli(['stop']);
    await proxy?.stop();
    await world?.stop();
    await home?.cleanup();
  });

  it('without the proxy STS cannot be reached: nothing passes by going around it', async () => {
    await brokerWith({});
    const direct = await whoami();
    expect(direct.code).not.toBe(0);
    expect(direct.stderr).toContain('ENOTFOUND: the host name does not resolve, direct (no HTTPS_PROXY set)');
    expect(world.moto.count('AssumeRole')).toBe(0);
  }, 120_000);

  it('through the proxy the role is assumed, and kubectl is that role', async () => {
    await brokerWith({ HTTPS_PROXY: proxyUrlWith(proxy, PROXY_USER, PROXY_PASSWORD) });
    const served = await whoami();
    expect(served.code, served.stderr).toBe(0);
    expect(served.stdout).toMatch(/^arn:aws:sts::123456789012:assumed-role\/deployer\/alice$/);
    expect(world.moto.count('AssumeRole')).toBe(1);
    expect(await proxy.log()).toContain(`CONNECT ${STS_HOST}:${world.stsPort}`);
    expectNoSecretIn(
      [served.stdout, served.stderr, await readDaemonLog(home.dir), broker?.output() ?? ''],
      proxyPasswordForms(PROXY_PASSWORD),
    );
  }, 120_000);
});
