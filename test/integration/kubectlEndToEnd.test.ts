import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { writeExecKubeconfig, type ExecApiVersion } from '../support/kubeconfig.js';
import { startKubeApiServer, type KubeApiServer } from '../support/kubeApiServer.js';
import { findKubectlBuilds, runKubectl } from '../support/kubectl.js';
import { createTestPki, type TestPki } from '../support/pki.js';
import { KUBECRED_CLI, NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const TOKEN = 'kc-e2e-token-3f9a1c7d0b2e4f6a';
const API_VERSIONS: ExecApiVersion[] = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'];
const SHIMS = [
  { name: 'native shim', command: NATIVE_SHIM },
  { name: 'node shim', command: KUBECRED_CLI },
];
const BUILDS = findKubectlBuilds();

// Against a real kube-apiserver (issue 13): /api answers only an authenticated user (anonymous
// gets 403), so a 200 proves the server took the credential Kubecred served.
describe('kubectl through Kubecred, every build, both shims, both apiVersions, against a real kube-apiserver', () => {
  let home: TempHome;
  let pki: TestPki;
  let broker: TestBroker;
  let api: KubeApiServer;

  async function setSecret(profile: string, field: string, value: string): Promise<void> {
    const result = await run(process.execPath, [KUBECRED_CLI, 'secret', 'set', profile, field], {
      env: brokerEnv(home.dir),
      input: value,
    });
    expect(result.code, result.stderr).toBe(0);
  }

  beforeAll(async () => {
    assertBuilt({ shim: true });
    expect(BUILDS.length).toBeGreaterThanOrEqual(2);
    home = await makeTempHome();
    pki = await createTestPki(path.join(home.dir, 'pki'));
    api = await startKubeApiServer({
      dir: path.join(home.dir, 'apiserver'),
      pki,
      tokens: [{ token: TOKEN, user: 'e2e', groups: ['system:masters'] }],
    });
    await writeConfig(
      home.dir,
      'profiles:\n  - name: tok\n    provider: static\n  - name: cert\n    provider: static\n  - name: wrong\n    provider: static\n',
    );
    broker = await startTestBroker(home.dir);
    await setSecret('tok', 'token', `${TOKEN}\n`);
    await setSecret('cert', 'client-certificate', pki.clientCertPem);
    await setSecret('cert', 'client-key', pki.clientKeyPem);
    await setSecret('wrong', 'token', 'not-the-token');
  }, 120_000);

  afterAll(async () => {
    await broker?.stop();
    await api?.stop();
    await home?.cleanup();
  });

  async function kubectlVia(build: string, shim: string, apiVersion: ExecApiVersion, profile: string) {
    const kubeconfig = await writeExecKubeconfig({
      path: path.join(
        home.dir,
        `kubeconfig-${profile}-${path.basename(build)}-${path.basename(shim)}-${apiVersion.split('/')[1]}`,
      ),
      server: api.url,
      caPem: api.caPem,
      command: shim,
      args: ['credential', profile],
      apiVersion,
      env: { KUBECRED_HOME: home.dir },
      provideClusterInfo: true,
      interactiveMode: 'IfAvailable',
    });
    return runKubectl(build, ['get', '--raw', '/api'], { kubeconfig });
  }

  describe.each(BUILDS)('$name', (build) => {
    it.each(SHIMS.flatMap((shim) => API_VERSIONS.map((apiVersion) => ({ ...shim, apiVersion }))))(
      'bearer token via $name, $apiVersion',
      async ({ command, apiVersion }) => {
        const result = await kubectlVia(build.path, command, apiVersion, 'tok');
        expect(result.code, result.stderr).toBe(0);
        expect(JSON.parse(result.stdout).kind).toBe('APIVersions');
      },
    );

    it.each(SHIMS.flatMap((shim) => API_VERSIONS.map((apiVersion) => ({ ...shim, apiVersion }))))(
      'client certificate via $name, $apiVersion',
      async ({ command, apiVersion }) => {
        const result = await kubectlVia(build.path, command, apiVersion, 'cert');
        expect(result.code, result.stderr).toBe(0);
        expect(JSON.parse(result.stdout).kind).toBe('APIVersions');
      },
    );

    it("is refused with the wrong token, and the failure is kubectl's, not the plugin's", async () => {
      const result = await kubectlVia(build.path, NATIVE_SHIM, 'client.authentication.k8s.io/v1', 'wrong');
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/Unauthorized|provide credentials/);
      expect(result.stderr).not.toContain('kubecred:');
    });
  });

  it('shows a clear plugin error in kubectl for an unknown profile', async () => {
    const [build] = BUILDS;
    const result = await kubectlVia(build!.path, NATIVE_SHIM, 'client.authentication.k8s.io/v1', 'missing');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('kubecred: no profile "missing"');
  });

  // kubectl exits as soon as the API server answers, often before the audit line is written:
  // the name must come from the executable read while it waited, not the name it gave itself.
  it('names every kubectl in the audit trail by the executable it ran', async () => {
    const served = (await readFile(path.join(home.dir, 'state', 'audit.jsonl'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { profile: string; outcome: string; caller: { name?: string } })
      .filter((record) => record.outcome === 'served' && record.profile !== 'wrong');
    expect(served.length).toBeGreaterThanOrEqual(BUILDS.length * 8);
    const names = new Set(served.map((record) => record.caller.name));
    expect(
      [...names].filter((name) => !/^kubectl(\.1\.\d+)?$/.test(name ?? '')),
      [...names].join(', '),
    ).toEqual([]);
  });

  it('keeps the planted token out of the home, the logs and the audit trail', async () => {
    const leaks = await run('grep', ['-r', '-l', '-a', '-F', TOKEN, home.dir]);
    // The API server's own token file and the test PKI hold them by design; nothing of Kubecred's may.
    expect(
      leaks.stdout
        .split('\n')
        .filter((f) => f && !f.includes(`${path.sep}pki${path.sep}`) && !f.includes(`${path.sep}apiserver${path.sep}`)),
    ).toEqual([]);
    expect(broker.output()).not.toContain(TOKEN);
    const clientKeyBody = pki.clientKeyPem.split('\n')[1] ?? 'unreachable';
    const keyLeaks = await run('grep', ['-r', '-l', '-a', '-F', clientKeyBody, home.dir]);
    expect(keyLeaks.stdout.split('\n').filter((f) => f && !f.includes(`${path.sep}pki${path.sep}`))).toEqual([]);
  });
});
