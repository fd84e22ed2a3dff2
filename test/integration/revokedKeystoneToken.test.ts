import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiStandIn, type ApiStandIn } from '../support/apiServer.js';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { startKeystoneStandIn, type KeystoneStandIn } from '../support/keystoneStandIn.js';
import { writeExecKubeconfig } from '../support/kubeconfig.js';
import { findKubectlBuilds, runKubectl } from '../support/kubectl.js';
import { createTestPki } from '../support/pki.js';
import { NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

// Issue 12, "revoked credentials stay cached", for Keystone: the broker asks Keystone itself
// (GET /v3/auth/tokens) when kubectl asks again, so this works without provideClusterInfo,
// where the cluster probe has no address to ask.
describe('a cached Keystone token that Keystone revoked', () => {
  let home: TempHome;
  let keystone: KeystoneStandIn;
  let api: ApiStandIn;
  let broker: TestBroker;
  let kubeconfig: string;
  const { cli } = callersFor(() => home.dir);
  const kubectl = findKubectlBuilds().filter((b) => b.name !== 'kubectl').pop()!;
  const get = () => runKubectl(kubectl.path, ['get', '--raw', '/version'], { kubeconfig });
  const logins = () => keystone.tokens.length;

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    keystone = await startKeystoneStandIn();
    await writeConfig(home.dir, `profiles:\n  - { name: os, provider: keystone, authUrl: ${keystone.authUrl}, username: alice, userDomainName: Default, projectName: demo, projectDomainName: Default }\n`);
    // The cluster trusts exactly the tokens Keystone still honours, as a webhook authenticator would.
    api = await startApiStandIn({ pki: await createTestPki(path.join(home.dir, 'pki')), auth: { verifyBearer: (token) => keystone.accepts(token) } });
    broker = await startTestBroker(home.dir);
    expect((await cli(['secret', 'set', 'os', 'password'], 'correct horse battery')).code).toBe(0);
    kubeconfig = await writeExecKubeconfig({ path: path.join(home.dir, 'kubeconfig'), server: api.url, caPem: api.caPem, command: NATIVE_SHIM, args: ['credential', 'os'], apiVersion: 'client.authentication.k8s.io/v1', env: { KUBECRED_HOME: home.dir }, provideClusterInfo: false });
  }, 60_000);

  afterAll(async () => {
    await broker?.stop();
    await api?.close();
    await keystone?.close();
    await home?.cleanup();
  });

  it('is not served again once Keystone says so: the next kubectl command works without a logout', async () => {
    expect((await get()).code).toBe(0);
    expect((await get()).code).toBe(0);
    expect(logins()).toBe(1);
    keystone.revoke(keystone.tokens[0]!);
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
