import https from 'node:https';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClientGo, runClientGo } from '../support/clientGo.js';
import { clientNodeConfig } from '../support/clientNode.js';
import { startGuardedCluster, type GuardedCluster } from '../support/guardedCluster.js';
import { findKubectlBuilds } from '../support/kubectl.js';
import { runPython } from '../support/pythonKubernetes.js';
import { eventsAbout, settled } from '../support/serverAudit.js';

// Issue 41 (security review 4, D1, D2, D4): the guard decides on what kube-apiserver will do,
// judged from the API server's own audit log, with kubectl, client-go, client-node, a raw
// HTTP client and the Python kubernetes client as callers.
const KUBECTL = findKubectlBuilds().at(-1)!;
const TOKEN = `erin-${Math.random().toString(16).slice(2)}-guard-effects`;
const USER = 'erin';

const configMap = (name: string, labels: Record<string, string> = {}) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', labels },
    data: { v: '1' },
  });
const pod = (name: string) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { automountServiceAccountToken: false, containers: [{ name: 'c', image: 'example.invalid/none' }] },
  });

interface RawAnswer {
  readonly status: number;
  readonly body: string;
}

/** A hand-written request through the proxy, with the local certificate kubectl would get. */
async function raw(kc: KubeConfig, method: string, path: string, body?: string): Promise<RawAnswer> {
  const options: https.RequestOptions = {};
  await kc.applyToHTTPSOptions(options);
  const server = new URL(kc.getCurrentCluster()!.server);
  return new Promise((resolve, reject) => {
    const request = https.request(
      {
        ...options,
        host: server.hostname,
        port: server.port,
        method,
        path,
        // Node frames no body of a DELETE by itself: say its length.
        headers:
          body === undefined
            ? {}
            : { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

describe('the guard decides on what the API server will do (its audit log the judge)', () => {
  let cluster: GuardedCluster;
  let clientGo: string;
  let kc: KubeConfig;
  let audit: string;
  let markers = 0;

  /** Every request sent so far is in the server's audit log once this returns. */
  const allLogged = async () => {
    const marker = `marker-${++markers}`;
    await cluster.admin(['get', 'configmap', marker, '--ignore-not-found']);
    await settled(audit, marker);
  };
  const exists = async (kind: string, name: string) =>
    (await cluster.admin(['get', kind, name, '-o', 'name', '--ignore-not-found'])).stdout.trim() !== '';
  const python = (program: string) =>
    runPython(
      `import kubernetes, json, sys\nkubernetes.config.load_kube_config()\ncore = kubernetes.client.CoreV1Api()\n${program}`,
      { ...cluster.env, KUBECONFIG: cluster.kubeconfig },
    );

  beforeAll(async () => {
    [cluster, clientGo] = await Promise.all([
      startGuardedCluster({
        profile: 'prod',
        users: [{ token: TOKEN, user: USER, groups: ['ops'] }],
        kubectl: KUBECTL.path,
        guard: 'read-only',
        audit: true,
      }),
      buildClientGo(),
    ]);
    audit = cluster.api.auditLog!;
    for (const object of [
      configMap('keep'),
      configMap('keep2'),
      configMap('x1', { app: 'x' }),
      configMap('x2', { app: 'x' }),
      configMap('db'),
      pod('db'),
      pod('web'),
    ])
      expect((await cluster.admin(['apply', '-f', '-'], object)).code).toBe(0);
    expect((await cluster.admin(['create', 'serviceaccount', 'deployer'])).code).toBe(0);
    kc = clientNodeConfig(cluster.kubeconfig, cluster.env);
  }, 600_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  describe('read-only', () => {
    it('D1: a TokenRequest "dry run" mints nothing, from a raw client, client-go or Python', async () => {
      const path = '/api/v1/namespaces/default/serviceaccounts/deployer/token?dryRun=All';
      const answer = await raw(
        kc,
        'POST',
        path,
        JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} }),
      );
      expect(answer.status).toBe(403);
      expect(answer.body).toContain(
        'kubecred guard refused: create serviceaccounts/token \\"deployer\\" in namespace \\"default\\"',
      );
      expect(answer.body).not.toContain('"token"');

      const fromGo = await runClientGo(clientGo, cluster.kubeconfig, cluster.env, {
        args: ['dry-run-token', 'deployer'],
      });
      expect(fromGo.code, fromGo.stderr).toBe(1);
      expect(JSON.parse(fromGo.stdout)).toMatchObject({ code: 403, forbidden: true });

      const fromPython = await python(
        `try:\n  core.create_namespaced_service_account_token("deployer", "default", kubernetes.client.AuthenticationV1TokenRequest(spec=kubernetes.client.V1TokenRequestSpec(audiences=[])), dry_run="All")\n  print("issued")\nexcept kubernetes.client.ApiException as e:\n  print(e.status)\n`,
      );
      expect(fromPython.stdout.trim(), fromPython.stderr).toBe('403');

      await allLogged();
      // Nothing of the three arrived: the server minted no token.
      expect(await eventsAbout(audit, USER, 'serviceaccounts/token')).toEqual([]);
    });

    it('D2: a DELETE with dryRun in the query and DeleteOptions in the body deletes nothing, and says why', async () => {
      const item = await raw(
        kc,
        'DELETE',
        '/api/v1/namespaces/default/configmaps/keep?dryRun=All',
        JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1' }),
      );
      expect(item.status).toBe(403);
      expect(item.body).toContain(
        'delete configmaps \\"keep\\" in namespace \\"default\\" (profile prod, rule \\"read-only\\")',
      );
      const collection = await raw(
        kc,
        'DELETE',
        '/api/v1/namespaces/default/configmaps?labelSelector=app%3Dx&dryRun=All',
        JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' }),
      );
      expect(collection.status).toBe(403);
      // The Python client sends exactly this pair.
      const fromPython = await python(
        `try:\n  core.delete_namespaced_config_map("keep", "default", dry_run="All", body=kubernetes.client.V1DeleteOptions())\n  print("deleted")\nexcept kubernetes.client.ApiException as e:\n  print(e.status)\n`,
      );
      expect(fromPython.stdout.trim(), fromPython.stderr).toBe('403');
      // client-node with a body beside its dryRun.
      const core = kc.makeApiClient(CoreV1Api);
      await expect(
        core.deleteNamespacedConfigMap({ name: 'keep', namespace: 'default', dryRun: 'All', body: {} }),
      ).rejects.toMatchObject({ code: 403 });

      await allLogged();
      expect(await eventsAbout(audit, USER, 'configmaps', 'keep')).toEqual([]);
      expect((await eventsAbout(audit, USER, 'configmaps')).filter((e) => e.verb === 'deletecollection')).toEqual([]);
      expect(await exists('configmap', 'keep')).toBe(true);
      expect(await exists('configmap', 'x1')).toBe(true);
    });

    it('the genuine dry runs pass: kubectl delete --dry-run=server, apply --dry-run=server, diff; client-go; client-node; Python', async () => {
      const deleted = await cluster.kubectl(['delete', 'configmap', 'keep2', '--dry-run=server']);
      expect(deleted.code, deleted.stderr).toBe(0);
      expect(deleted.stdout).toContain('configmap "keep2" deleted (server dry run)');
      const applied = await cluster.kubectl(
        ['apply', '--dry-run=server', '-f', '-'],
        configMap('keep2', { changed: 'yes' }),
      );
      expect(applied.code, applied.stderr).toBe(0);
      const diff = await cluster.kubectl(['diff', '-f', '-'], configMap('keep2', { changed: 'yes' }));
      expect(diff.stderr).not.toContain('kubecred guard refused');
      expect(diff.code).toBe(1); // 1: a difference found, which the server worked out
      expect(diff.stdout).toContain('changed: "yes"');

      const fromGo = await runClientGo(clientGo, cluster.kubeconfig, cluster.env, {
        args: ['dry-run-delete-configmap', 'keep2'],
      });
      expect(fromGo.code, fromGo.stdout + fromGo.stderr).toBe(0);
      const core = kc.makeApiClient(CoreV1Api);
      await core.deleteNamespacedConfigMap({ name: 'keep2', namespace: 'default', dryRun: 'All' });
      const fromPython = await python(
        `core.delete_namespaced_config_map("keep2", "default", body=kubernetes.client.V1DeleteOptions(dry_run=["All"]))\nprint("dry")\n`,
      );
      expect(fromPython.stdout.trim(), fromPython.stderr).toBe('dry');

      await allLogged();
      const deletes = (await eventsAbout(audit, USER, 'configmaps', 'keep2')).filter((e) => e.verb === 'delete');
      // kubectl, client-go, client-node and Python: four deletes arrived, each a dry run the
      // server read where it reads it, and the ConfigMap is still there.
      expect(deletes).toHaveLength(4);
      for (const event of deletes) {
        const inBody = (event.requestObject as { dryRun?: string[] } | undefined)?.dryRun;
        expect(inBody ?? new URL(event.requestURI, 'https://x').searchParams.getAll('dryRun')).toEqual(['All']);
        expect(event.responseStatus?.code).toBe(200);
      }
      const patches = (await eventsAbout(audit, USER, 'configmaps', 'keep2')).filter((e) => e.verb === 'patch');
      expect(patches.length).toBeGreaterThanOrEqual(2); // apply --dry-run=server and diff
      for (const event of patches) expect(event.requestURI).toContain('dryRun=All');
      expect(await exists('configmap', 'keep2')).toBe(true);
      const labels = await cluster.admin(['get', 'configmap', 'keep2', '-o', 'jsonpath={.metadata.labels}']);
      expect(labels.stdout).not.toContain('changed');
    });
  });

  describe('deny and confirm rules match effects, not request shapes', () => {
    beforeAll(async () => {
      await cluster.setGuard(
        JSON.stringify({
          rules: [
            { name: 'keep db', action: 'deny', verbs: ['delete'], names: ['db'] },
            { name: 'no secrets', action: 'deny', resources: ['secrets'], namespaces: ['default'] },
          ],
        }),
      );
      expect((await cluster.admin(['create', 'secret', 'generic', 's1', '--from-literal=password=hunter2'])).code).toBe(
        0,
      );
      // The broker reads config.yaml on the next request, and the proxy hears of it then.
      await cluster.kubectl(['get', '--raw', '/version']);
    });

    it('D4: an eviction of db is a delete of db: refused for kubectl drain-style tooling and client-go', async () => {
      const fromGo = await runClientGo(clientGo, cluster.kubeconfig, cluster.env, { args: ['evict-pod', 'db'] });
      expect(fromGo.code, fromGo.stdout).toBe(1);
      expect(JSON.parse(fromGo.stdout)).toMatchObject({ code: 403 });
      expect(JSON.parse(fromGo.stdout).message).toContain('rule "keep db": deny');
      // Another pod may go.
      const web = await runClientGo(clientGo, cluster.kubeconfig, cluster.env, { args: ['evict-pod', 'web'] });
      expect(web.code, web.stdout + web.stderr).toBe(0);
      await allLogged();
      expect(await eventsAbout(audit, USER, 'pods/eviction', 'db')).toEqual([]);
      expect((await eventsAbout(audit, USER, 'pods/eviction', 'web')).map((e) => e.responseStatus?.code)).toEqual([
        201,
      ]);
      expect(await exists('pod', 'db')).toBe(true);
      expect(await exists('pod', 'web')).toBe(false);
    });

    it('D4: a deletecollection that can take db is refused, whatever its selector', async () => {
      const bySelector = await raw(
        kc,
        'DELETE',
        '/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Ddb',
      );
      expect(bySelector.status).toBe(403);
      const byLabel = await cluster.kubectl(['delete', 'configmaps', '-l', 'app=x']);
      // kubectl deletes one by one after a list: those are not db, and go.
      expect(byLabel.code, byLabel.stderr).toBe(0);
      const all = await raw(kc, 'DELETE', '/api/v1/namespaces/default/configmaps?labelSelector=app%3Dnone');
      expect(all.status).toBe(403);
      await allLogged();
      expect((await eventsAbout(audit, USER, 'configmaps')).filter((e) => e.verb === 'deletecollection')).toEqual([]);
      expect(await exists('configmap', 'db')).toBe(true);
      expect(await exists('configmap', 'x1')).toBe(false);
    });

    it("D4: a cluster-wide list or watch of secrets is a read of default's secrets", async () => {
      const list = await cluster.kubectl(['get', 'secrets', '-A']);
      expect(list.code).not.toBe(0);
      expect(list.stderr).toContain('kubecred guard refused: list secrets (profile prod, rule "no secrets": deny)');
      expect(list.stdout + list.stderr).not.toContain('s1');
      const watch = await raw(kc, 'GET', '/api/v1/secrets?watch=1');
      expect(watch.status).toBe(403);
      expect(watch.body).not.toContain('aHVudGVyMg==');
      const fromPython = await python(
        `try:\n  core.list_secret_for_all_namespaces()\n  print("listed")\nexcept kubernetes.client.ApiException as e:\n  print(e.status)\n`,
      );
      expect(fromPython.stdout.trim(), fromPython.stderr).toBe('403');
      // Another namespace's secrets stay readable.
      expect((await cluster.kubectl(['get', 'secrets', '-n', 'kube-system'])).code).toBe(0);
      await allLogged();
      expect((await eventsAbout(audit, USER, 'secrets')).filter((e) => !e.objectRef?.namespace)).toEqual([]);
    });
  });
});
