import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import path from 'node:path';
import { AuthenticationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/main/platform/freePort.js';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { startBrowser, type BrowserDriver } from '../support/browserDriver.js';
import { callersFor } from '../support/callers.js';
import { clientNodeConfig } from '../support/clientNode.js';
import { startKubeApiServer, type KubeApiServer } from '../support/kubeApiServer.js';
import { findKubectlBuilds, runKubectl } from '../support/kubectl.js';
import { startTestIssuer, type TestIssuer } from '../support/oidcIssuer.js';
import { createTestPki, type TestPki } from '../support/pki.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { createExtractableKey, createSoftHsm, pkcs11Tool, type SoftHsm } from '../support/softhsm.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const ADMIN_TOKEN = 'kc-real-admin-token-4b8e1f6a2c9d';
const NOBODY_TOKEN = 'kc-real-nobody-token-7d3a9c5e1b0f';
const UNKNOWN_TOKEN = 'kc-real-unknown-token-2e6b0d8f4a1c';
// kubectl 1.28+ can ask `auth whoami` of a 1.34 server (1.27 asks for an API version it no longer serves).
const KUBECTL = findKubectlBuilds()
  .filter((b) => b.name === 'kubectl' || Number(b.name.split('.').at(-1)) >= 28)
  .at(-1)!;
const PROFILES = ['admin', 'nobody', 'unknown', 'cert', 'hsmcert', 'sso'] as const;
const PIN = '314159';
const ID_TOKEN_TTL_S = 20;

interface WhoAmI {
  status: { userInfo: { username: string; groups?: string[] } };
}

/** A kubeconfig with one context per profile, each user asking Kubecred through the native shim. */
function kubeconfigFor(api: KubeApiServer, home: string): string {
  const ca = Buffer.from(api.caPem).toString('base64');
  const users = PROFILES.map(
    (p) =>
      `- name: ${p}\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ${NATIVE_SHIM}\n      args: [credential, ${p}]\n      env: [{name: KUBECRED_HOME, value: '${home}'}]\n      interactiveMode: Never\n      provideClusterInfo: true\n`,
  ).join('');
  const contexts = PROFILES.map((p) => `- name: ${p}\n  context: {cluster: real, user: ${p}}\n`).join('');
  return `apiVersion: v1\nkind: Config\nclusters:\n- name: real\n  cluster: {server: '${api.url}', certificate-authority-data: ${ca}}\ncontexts:\n${contexts}current-context: admin\nusers:\n${users}`;
}

// Issue 13: the far end of these paths is a real kube-apiserver (with etcd), which decides for
// itself whether a credential is good and who the user is.
describe('kubectl through Kubecred against a real kube-apiserver', () => {
  let home: TempHome;
  let pki: TestPki;
  let issuer: TestIssuer;
  let api: KubeApiServer;
  let broker: TestBroker;
  let browser: BrowserDriver;
  let browserStandIn: RecordingBrowser;
  let kubeconfig: string;
  let hsm: SoftHsm;
  const { cli } = callersFor(
    () => home.dir,
    () => ({ SOFTHSM2_CONF: hsm.conf }),
  );
  const kubectl = (context: string, args: string[]) =>
    runKubectl(KUBECTL.path, ['--context', context, ...args], { kubeconfig, env: brokerEnv(home.dir) });
  const whoami = async (context: string) => {
    const result = await kubectl(context, ['auth', 'whoami', '-o', 'json']);
    expect(result.code, `${context}: ${result.stderr}`).toBe(0);
    return (JSON.parse(result.stdout) as WhoAmI).status.userInfo;
  };

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    pki = await createTestPki(path.join(home.dir, 'pki'));
    // The issuer first: the API server's /readyz does not wait for it.
    // Short-lived ID tokens, so the suite sees one expire and be refreshed before the server refuses it.
    issuer = await startTestIssuer({ dir: path.join(home.dir, 'issuer'), idTokenTtlSeconds: ID_TOKEN_TTL_S });
    api = await startKubeApiServer({
      dir: path.join(home.dir, 'apiserver'),
      pki,
      tokens: [
        { token: ADMIN_TOKEN, user: 'alice', groups: ['dev-team', 'system:masters'] },
        { token: NOBODY_TOKEN, user: 'nobody' },
      ],
      oidc: { issuer: issuer.issuer, clientId: issuer.clientId, caFile: issuer.caFile },
    });
    process.stderr.write(`real API server: kube-apiserver ${api.gitVersion} at ${api.url}\n`);
    hsm = await hsmWithClientCertificate(path.join(home.dir, 'hsm'), pki);
    await writeConfig(
      home.dir,
      `tokens:\n  - { name: hsm, module: ${hsm.module}, label: ${hsm.label} }\nprofiles:\n${['admin', 'nobody', 'unknown', 'cert'].map((p) => `  - { name: ${p}, provider: static }\n`).join('')}  - { name: hsmcert, provider: static, tokenCertificate: { token: hsm, label: hsm-client } }\n  - { name: sso, provider: oidc, issuer: '${issuer.issuer}', clientId: ${issuer.clientId}, caFile: '${issuer.caFile}', flow: browser, clockSkew: 5s }\n`,
    );
    browserStandIn = await recordingBrowser(home.dir);
    broker = await startTestBroker(home.dir, { KUBECRED_BROWSER: browserStandIn.command, SOFTHSM2_CONF: hsm.conf });
    expect((await cli(['token', 'login', 'hsm'], PIN)).code).toBe(0);
    for (const [profile, field, value] of [
      ['admin', 'token', ADMIN_TOKEN],
      ['nobody', 'token', NOBODY_TOKEN],
      ['unknown', 'token', UNKNOWN_TOKEN],
      ['cert', 'client-certificate', pki.clientCertPem],
      ['cert', 'client-key', pki.clientKeyPem],
    ] as const) {
      const stored = await cli(['secret', 'set', profile, field], value);
      expect(stored.code, stored.stderr).toBe(0);
    }
    kubeconfig = path.join(home.dir, 'kubeconfig');
    await writeFile(kubeconfig, kubeconfigFor(api, home.dir), { mode: 0o600 });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await broker?.stop();
    await api?.stop();
    await issuer?.stop();
    hsm?.dispose();
    await home?.cleanup();
    // Nothing left running: etcd and the API server are gone.
    for (const pid of api?.pids ?? []) expect(() => process.kill(pid, 0)).toThrow();
  });

  it('is a real server: an ID token that is well formed but not signed by the issuer is refused with 401', async () => {
    const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const unsigned = `${b64({ alg: 'RS256', kid: 'nope' })}.${b64({ iss: issuer.issuer, aud: issuer.clientId, sub: 'mallory', iat: now, exp: now + 600 })}.${Buffer.from('not-a-signature').toString('base64url')}`;
    const result = await runKubectl(
      KUBECTL.path,
      ['--server', api.url, '--certificate-authority', api.caFile, '--token', unsigned, 'auth', 'whoami'],
      { kubeconfig: '/dev/null' },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Unauthorized');
    expect(api.gitVersion).toMatch(/^v1\.\d+\.\d+$/);
  });

  it('a static token profile: the server names the user and groups of its token file', async () => {
    const user = await whoami('admin');
    expect(user.username).toBe('alice');
    expect(user.groups).toEqual(expect.arrayContaining(['dev-team', 'system:masters', 'system:authenticated']));
  });

  it("a client certificate profile: the server names the certificate's CN and O", async () => {
    const user = await whoami('cert');
    expect(user.username).toBe('kubecred-test');
    expect(user.groups).toEqual(expect.arrayContaining(['system:masters']));
  });

  it("a certificate on a PKCS#11 token (SoftHSM2): x509 authentication with the token's certificate", async () => {
    const user = await whoami('hsmcert');
    expect(user.username).toBe('hsm-user');
    expect(user.groups).toEqual(expect.arrayContaining(['hsm-team']));
  });

  it('a token the server does not know: kubectl gets 401 and one clear line', async () => {
    const result = await kubectl('unknown', ['get', 'namespaces']);
    expect(result.code).toBe(1);
    // kubectl's own last word on a 401 (client-go ran the plugin again first, as on every 401).
    expect(result.stderr.trim().split('\n').at(-1)).toMatch(
      /^error: You must be logged in to the server \((Unauthorized|the server has asked for the client to provide credentials)\)$/,
    );
    expect(result.stderr).not.toContain(UNKNOWN_TOKEN);
  });

  it('a user without RBAC rights gets 403, and Kubecred keeps serving its credential (403 is not a bad credential)', async () => {
    expect((await whoami('nobody')).username).toBe('nobody');
    const denied = await kubectl('nobody', ['get', 'namespaces']);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/Forbidden|cannot list resource "namespaces"/);
    // The revocation probe drops only on 401: the next call is served from the cache.
    const status = await cli(['status', '-o', 'json']);
    const profile = (JSON.parse(status.stdout) as { profiles: Array<{ name: string; state: string }> }).profiles.find(
      (p) => p.name === 'nobody',
    );
    expect(profile?.state).toBe('ready');
    expect((await whoami('nobody')).username).toBe('nobody');
  });

  it('OIDC: the real API server trusts the issuer; one login in the browser, then whoami says oidc:<user>', async () => {
    browser = await startBrowser();
    const first = kubectl('sso', ['auth', 'whoami', '-o', 'json']);
    const authorization = await browserStandIn.nth(0, 30_000);
    expect(await browser.signIn(authorization)).toContain('signed in');
    const result = await first;
    expect(result.code, result.stderr).toBe(0);
    const user = (JSON.parse(result.stdout) as WhoAmI).status.userInfo;
    expect(user.username).toMatch(/^oidc:/);
    expect(user.groups).toEqual(
      expect.arrayContaining([
        'oidc:kubecred-users',
        `oidc:team-${user.username.slice('oidc:'.length)}`,
        'system:authenticated',
      ]),
    );
    // The next command comes from the cache: no second login.
    expect((await whoami('sso')).username).toBe(user.username);
    expect(issuer.counts.authorizations).toBe(1);
  }, 120_000);

  it('OIDC: the ID token is renewed with the refresh token before the server would refuse it', async () => {
    const refreshesBefore = issuer.counts.grants.refresh_token ?? 0;
    // Past the first ID token's exp: the server would refuse it now.
    await new Promise((resolve) => setTimeout(resolve, (ID_TOKEN_TTL_S + 1) * 1000));
    const user = await whoami('sso');
    expect(user.username).toMatch(/^oidc:/);
    expect(issuer.counts.grants.refresh_token ?? 0).toBeGreaterThan(refreshesBefore);
    expect(issuer.counts.authorizations).toBe(1);
  }, 60_000);

  // Issue 33: the same OIDC profile through kubecred-proxy. The ID token stays in the broker and
  // the proxy; kubectl holds a certificate for the listener only. A program that keeps its local
  // certificate goes on past the ID token's end: the proxy gets the refreshed token from the
  // broker, and the program never runs the plugin again.
  it('OIDC through the exec proxy: the server sees the same user, the kubeconfig holds no token, a refresh reaches the proxy', async () => {
    const port = await freePort();
    const config = await readFile(path.join(home.dir, 'config.yaml'), 'utf8');
    await writeConfig(
      home.dir,
      config.replace(
        'flow: browser, clockSkew: 5s }',
        `flow: browser, clockSkew: 5s, proxy: { port: ${port}, server: '${api.url}', caFile: '${pki.caCertPath}' } }`,
      ),
    );
    const installed = await cli(['install', '--profile', 'sso', '--context', 'sso', '--kubeconfig', kubeconfig]);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stderr).toContain(`through kubecred-proxy at https://127.0.0.1:${port}`);
    const direct = (await whoami('admin')).username;
    expect(direct).toBe('alice');
    const user = await whoami('sso');
    expect(user.username).toMatch(/^oidc:/);
    expect(user.groups).toEqual(expect.arrayContaining(['oidc:kubecred-users']));
    const text = await readFile(kubeconfig, 'utf8');
    expect(text).not.toMatch(/eyJ[\w-]+\.[\w-]+\./);
    expect(text).toContain(`https://127.0.0.1:${port}`);

    const client = clientNodeConfig(kubeconfig, { KUBECRED_HOME: home.dir }, { context: 'sso' });
    const whoamiOf = async () =>
      (await client.makeApiClient(AuthenticationV1Api).createSelfSubjectReview({ body: {} })).status?.userInfo
        ?.username;
    expect(await whoamiOf()).toBe(user.username);
    const pluginRuns = await servedToPlugins(home.dir, 'sso');
    const refreshesBefore = issuer.counts.grants.refresh_token ?? 0;
    await new Promise((resolve) => setTimeout(resolve, (ID_TOKEN_TTL_S + 1) * 1000));
    expect(await whoamiOf()).toBe(user.username);
    expect(issuer.counts.grants.refresh_token ?? 0).toBeGreaterThan(refreshesBefore);
    expect(await servedToPlugins(home.dir, 'sso')).toBe(pluginRuns);
    expect(issuer.counts.authorizations).toBe(1);
  }, 90_000);
});

/** How many credentials the broker served to exec plugins for a profile: one per plugin run. */
async function servedToPlugins(home: string, profile: string): Promise<number> {
  const lines = (await readFile(path.join(home, 'state', 'audit.jsonl'), 'utf8')).trim().split('\n');
  return lines.filter((line) => {
    const record = JSON.parse(line) as { profile: string; outcome: string; caller: { client: string } };
    return record.profile === profile && record.outcome === 'served' && ['shim', 'node'].includes(record.caller.client);
  }).length;
}

/** A SoftHSM2 token holding a client certificate the API server's CA signed, and its key. */
async function hsmWithClientCertificate(dir: string, pki: TestPki): Promise<SoftHsm> {
  const hsm = await createSoftHsm({ dir, label: 'kc-real-api', pin: PIN, soPin: '27182818' });
  const openssl = (args: string[]) => promisify(execFile)('openssl', args, { cwd: dir, timeout: 30_000 });
  await openssl([
    'req',
    '-new',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    'hsm.key',
    '-subj',
    '/O=hsm-team/CN=hsm-user',
    '-out',
    'hsm.csr',
  ]);
  await writeFile(
    path.join(dir, 'hsm.ext'),
    'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n',
  );
  await openssl([
    'x509',
    '-req',
    '-in',
    'hsm.csr',
    '-CA',
    pki.caCertPath,
    '-CAkey',
    path.join(pki.dir, 'ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    'hsm.ext',
    '-out',
    'hsm.crt',
  ]);
  await openssl(['x509', '-in', 'hsm.crt', '-outform', 'DER', '-out', 'hsm.crt.der']);
  await pkcs11Tool(hsm, [
    '--token-label',
    hsm.label,
    '--login',
    '--pin',
    PIN,
    '--write-object',
    path.join(dir, 'hsm.crt.der'),
    '--type',
    'cert',
    '--label',
    'hsm-client',
    '--id',
    '05',
  ]);
  await createExtractableKey(hsm, PIN, {
    pem: await readFile(path.join(dir, 'hsm.key'), 'utf8'),
    label: 'hsm-client',
    id: 5,
  });
  return hsm;
}
