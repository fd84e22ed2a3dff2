import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AuthenticationV1Api, KubeConfig, VersionApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { buildClientGo, runClientGo } from '../support/clientGo.js';
import { startKubeApiServer, type KubeApiServer } from '../support/kubeApiServer.js';
import { writeExecKubeconfig } from '../support/kubeconfig.js';
import { createTestPki } from '../support/pki.js';
import { KUBECRED_CLI, NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const TOKEN = 'kc-clients-token-8d2f61a0';
const PLUGIN = `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"${TOKEN}"}}'\n`;

/**
 * client-node caches exec credentials process-wide by user name, so each kubeconfig gets a
 * user name of its own: otherwise one case would be served another's token.
 */
async function loadClientNodeConfig(file: string): Promise<KubeConfig> {
  const json = JSON.parse(await readFile(file, 'utf8')) as {
    users: Array<{ name: string }>;
    contexts: Array<{ context: { user: string } }>;
  };
  const unique = path.basename(file);
  for (const user of json.users) user.name = unique;
  for (const context of json.contexts) context.context.user = unique;
  const config = new KubeConfig();
  config.loadFromString(JSON.stringify(json));
  return config;
}

// Against a real kube-apiserver (issue 13): each client asks who the server takes it for, which
// only an accepted credential answers.
describe('other real clients through Kubecred', () => {
  let home: TempHome;
  let api: KubeApiServer;
  let broker: TestBroker;

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    const pki = await createTestPki(path.join(home.dir, 'pki'));
    api = await startKubeApiServer({
      dir: path.join(home.dir, 'apiserver'),
      pki,
      tokens: [{ token: TOKEN, user: 'apps-user', groups: ['apps-team'] }],
    });
    await writeFile(path.join(home.dir, 'plugin.sh'), PLUGIN, { mode: 0o755 });
    await writeConfig(home.dir, `profiles:\n  - name: apps\n    provider: exec\n    command: ${home.dir}/plugin.sh\n`);
    broker = await startTestBroker(home.dir);
  }, 120_000);

  afterAll(async () => {
    await broker?.stop();
    await api?.stop();
    await home?.cleanup();
  });

  const kubeconfigFor = (
    name: string,
    command: string,
    args: string[],
    apiVersion: 'client.authentication.k8s.io/v1' | 'client.authentication.k8s.io/v1beta1',
  ) =>
    writeExecKubeconfig({
      path: path.join(home.dir, name),
      server: api.url,
      caPem: api.caPem,
      command,
      args,
      apiVersion,
      env: { KUBECRED_HOME: home.dir },
      provideClusterInfo: true,
    });

  it.each([
    ['native shim', NATIVE_SHIM],
    ['node shim', KUBECRED_CLI],
  ])(
    '@kubernetes/client-node (which sends no KUBERNETES_EXEC_INFO) via the %s with --api-version',
    async (_name, command) => {
      const file = await kubeconfigFor(
        `kc-node-${path.basename(command)}`,
        command,
        ['credential', 'apps', '--api-version', 'client.authentication.k8s.io/v1'],
        'client.authentication.k8s.io/v1',
      );
      const config = await loadClientNodeConfig(file);
      const version = await config.makeApiClient(VersionApi).getCode();
      expect(version.gitVersion).toBe(api.gitVersion);
      const review = await config
        .makeApiClient(AuthenticationV1Api)
        .createSelfSubjectReview({ body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
      expect(review.status?.userInfo?.username).toBe('apps-user');
    },
  );

  it("@kubernetes/client-node without --api-version gets the plugin's clear error", async () => {
    const file = await kubeconfigFor(
      'kc-node-noflag',
      NATIVE_SHIM,
      ['credential', 'apps'],
      'client.authentication.k8s.io/v1',
    );
    const config = await loadClientNodeConfig(file);
    await expect(
      config
        .makeApiClient(AuthenticationV1Api)
        .createSelfSubjectReview({ body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } }),
    ).rejects.toThrow(/KUBERNETES_EXEC_INFO is not set.*--api-version/s);
  });

  describe('k8s.io/client-go, the reference implementation of exec plugins', () => {
    let clientGo: string;
    beforeAll(async () => {
      clientGo = await buildClientGo();
    }, 600_000);

    it.each(['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'] as const)(
      'discovers the server version with %s through the native shim',
      async (apiVersion) => {
        const file = await kubeconfigFor(
          `kc-go-${apiVersion.split('/')[1]}`,
          NATIVE_SHIM,
          ['credential', 'apps'],
          apiVersion,
        );
        const result = await runClientGo(clientGo, file);
        expect(result.code, result.stderr).toBe(0);
        expect(JSON.parse(result.stdout)).toMatchObject({
          gitVersion: api.gitVersion,
          username: 'apps-user',
          groups: expect.arrayContaining(['apps-team']),
        });
      },
    );

    it('through the node shim', async () => {
      const file = await kubeconfigFor(
        'kc-go-node',
        KUBECRED_CLI,
        ['credential', 'apps'],
        'client.authentication.k8s.io/v1',
      );
      const result = await runClientGo(clientGo, file);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({
        gitVersion: api.gitVersion,
        username: 'apps-user',
        groups: expect.arrayContaining(['apps-team']),
      });
    });
  });
});
