import https from 'node:https';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { startKeystoneCluster, type KeystoneCluster } from '../support/keystoneCluster.js';
import type { KeystoneStandIn } from '../support/keystoneStandIn.js';
import type { KubeApiServer } from '../support/kubeApiServer.js';
import { writeExecKubeconfig } from '../support/kubeconfig.js';
import { newestKubectl, runKubectl, WHOAMI_ARGS } from '../support/kubectl.js';
import { NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

// Issue 12, "revoked credentials stay cached", for Keystone: the broker asks Keystone itself
// (GET /v3/auth/tokens) when kubectl asks again, so this works without provideClusterInfo,
// where the cluster probe has no address to ask. The cluster is a real kube-apiserver (issue 13)
// whose webhook token authenticator trusts what Keystone still honours, as k8s-keystone-auth does.
describe('a cached Keystone token that Keystone revoked', () => {
  let home: TempHome;
  let keystone: KeystoneStandIn;
  let api: KubeApiServer;
  let cluster: KeystoneCluster;
  let broker: TestBroker;
  let kubeconfig: string;
  const { cli } = callersFor(() => home.dir);
  const kubectl = newestKubectl();
  // /api answers only an authenticated user: the token went through the webhook to Keystone.
  const get = () => runKubectl(kubectl.path, ['get', '--raw', '/api'], { kubeconfig });
  const logins = () => keystone.tokens.length;

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    cluster = await startKeystoneCluster(home.dir);
    ({ keystone, api } = cluster);
    await writeConfig(
      home.dir,
      `profiles:\n  - { name: os, provider: keystone, authUrl: ${keystone.authUrl}, username: alice, userDomainName: Default, projectName: demo, projectDomainName: Default }\n`,
    );
    broker = await startTestBroker(home.dir);
    expect((await cli(['secret', 'set', 'os', 'password'], 'correct horse battery')).code).toBe(0);
    kubeconfig = await writeExecKubeconfig({
      path: path.join(home.dir, 'kubeconfig'),
      server: api.url,
      caPem: api.caPem,
      command: NATIVE_SHIM,
      args: ['credential', 'os'],
      apiVersion: 'client.authentication.k8s.io/v1',
      env: { KUBECRED_HOME: home.dir },
      provideClusterInfo: false,
    });
  }, 120_000);

  afterAll(async () => {
    await broker?.stop();
    await cluster?.stop();
    await home?.cleanup();
  });

  it('is not served again once Keystone says so: the next kubectl command works without a logout', async () => {
    const whoami = await runKubectl(kubectl.path, [...WHOAMI_ARGS], {
      kubeconfig,
    });
    expect(whoami.stdout, whoami.stderr).toBe('keystone:alice');
    expect((await get()).code).toBe(0);
    expect((await get()).code).toBe(0);
    expect(logins()).toBe(1);
    const revoked = keystone.tokens[0]!;
    keystone.revoke(revoked);
    // kube-apiserver trusts a token it reviewed for 10 s (its token success cache, not a flag):
    // wait until the server itself refuses the revoked token.
    await expect.poll(() => statusWith(api, revoked), { timeout: 20_000, interval: 500 }).toBe(401);
    const first = await get();
    const second = first.code === 0 ? first : await get();
    expect(second.code, second.stderr).toBe(0);
    expect(logins()).toBe(2);
    expect(keystone.accepts(keystone.tokens[1]!)).toBe(true);
  });

  it('keeps a token Keystone still honours, and asks Keystone at most every few seconds', async () => {
    const before = keystone.validations;
    for (let i = 0; i < 4; i++) expect((await get()).code).toBe(0);
    expect(logins()).toBe(2);
    // kubectl 1.33 asks twice per command: at most one validation per 5 s, never one per command.
    expect(keystone.validations - before).toBeLessThanOrEqual(2);
  });
});

/** The status of GET /api with this bearer token, straight to the server (no Kubecred). */
function statusWith(api: KubeApiServer, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = https.get(
      `${api.url}/api`,
      { ca: api.caPem, headers: { authorization: `Bearer ${token}` } },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on('error', reject);
  });
}
