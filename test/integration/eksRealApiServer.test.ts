import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { startKubeApiServer, type KubeApiServer } from '../support/kubeApiServer.js';
import { writeExecKubeconfig } from '../support/kubeconfig.js';
import { newestKubectl, runKubectl, WHOAMI_ARGS } from '../support/kubectl.js';
import { createTestPki } from '../support/pki.js';
import { NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';
import { startTokenWebhook, type TokenWebhook } from '../support/tokenWebhook.js';

const ACCESS_KEY_ID = 'AKIAKUBECREDTEST0001';
const SECRET_ACCESS_KEY = 'kc-eks-secret-key-5b7d9f1a3c5e7g9i1k3m';
const ARN = 'arn:aws:iam::123456789012:user/alice';

/**
 * What aws-iam-authenticator checks of an EKS token before it forwards the presigned request to
 * STS (there is no STS here; the signature itself is checked byte for byte against the aws CLI
 * in eksProvider.test.ts): the prefix, a GetCallerIdentity URL on the region's STS host, signed
 * by the expected access key, with the cluster named in a signed header, and fresh.
 */
function eksTokenUser(token: string, cluster: string, region: string): { username: string } | undefined {
  if (!token.startsWith('k8s-aws-v1.')) return undefined;
  const url = new URL(Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString());
  const query = url.searchParams;
  const signedAt = Date.parse(
    query.get('X-Amz-Date')?.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z') ?? '',
  );
  const ok =
    url.host === `sts.${region}.amazonaws.com` &&
    query.get('Action') === 'GetCallerIdentity' &&
    query.get('X-Amz-Credential')?.startsWith(`${ACCESS_KEY_ID}/`) === true &&
    (query.get('X-Amz-SignedHeaders') ?? '').split(';').includes('x-k8s-aws-id') &&
    /^[0-9a-f]{64}$/.test(query.get('X-Amz-Signature') ?? '') &&
    Math.abs(Date.now() - signedAt) < 15 * 60_000;
  return ok && cluster === 'prod' ? { username: ARN } : undefined;
}

// Issue 13: the EKS token path through a real kube-apiserver, whose webhook authenticator
// stands where aws-iam-authenticator runs on a real EKS cluster.
describe('an EKS profile against a real kube-apiserver', () => {
  let home: TempHome;
  let api: KubeApiServer;
  let webhook: TokenWebhook;
  let broker: TestBroker;
  let kubeconfig: string;
  const { cli } = callersFor(() => home.dir);
  const kubectl = newestKubectl();

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    const pki = await createTestPki(path.join(home.dir, 'pki'));
    webhook = await startTokenWebhook(home.dir, pki, (token) => eksTokenUser(token, 'prod', 'eu-west-1'));
    api = await startKubeApiServer({
      dir: path.join(home.dir, 'apiserver'),
      pki,
      tokenWebhookConfig: webhook.configFile,
    });
    await writeConfig(
      home.dir,
      'profiles:\n  - { name: eks-prod, provider: eks, clusterId: prod, region: eu-west-1 }\n',
    );
    broker = await startTestBroker(home.dir);
    expect((await cli(['secret', 'set', 'eks-prod', 'aws-access-key-id'], ACCESS_KEY_ID)).code).toBe(0);
    expect((await cli(['secret', 'set', 'eks-prod', 'aws-secret-access-key'], SECRET_ACCESS_KEY)).code).toBe(0);
    kubeconfig = await writeExecKubeconfig({
      path: path.join(home.dir, 'kubeconfig'),
      server: api.url,
      caPem: api.caPem,
      command: NATIVE_SHIM,
      args: ['credential', 'eks-prod'],
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      env: { KUBECRED_HOME: home.dir },
      provideClusterInfo: true,
    });
  }, 120_000);

  afterAll(async () => {
    await broker?.stop();
    await api?.stop();
    await webhook?.close();
    await home?.cleanup();
  });

  it('kubectl auth whoami names the IAM identity the webhook found in the token', async () => {
    const result = await runKubectl(kubectl.path, [...WHOAMI_ARGS], {
      kubeconfig,
      env: brokerEnv(home.dir),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(ARN);
    expect(webhook.reviews).toBeGreaterThan(0);
    expect(broker.output()).not.toContain(SECRET_ACCESS_KEY);
  });
});
