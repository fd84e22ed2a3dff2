import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { AuthenticationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClientGo, runClientGo } from '../support/clientGo.js';
import { clientNodeConfig } from '../support/clientNode.js';
import { startGuardedCluster, type GuardedCluster } from '../support/guardedCluster.js';
import { findKubectlBuilds, WHOAMI_ARGS } from '../support/kubectl.js';
import { startKubectl } from '../support/runningKubectl.js';
import { brokerEnv } from '../support/broker.js';
import { KUBECRED_CLI } from '../support/repo.js';
import { inTerminal } from '../support/terminal.js';

const KUBECTL = findKubectlBuilds().at(-1)!;
// Planted secrets: neither may ever show in the kubeconfig, an error or a log.
const ERIN_TOKEN = `erin-${randomBytes(16).toString('hex')}`;
const FRANK_TOKEN = `frank-${randomBytes(16).toString('hex')}`;
const LIFT = 'kubecred guard prod off --for 15m';

const configMap = (name: string, data: Record<string, string>) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data });

/** What the transcript in the closing note shows: the command, and what kubectl printed. */
/**
 * `kubecred guard prod off --for <duration>` as a person runs it, in a terminal: the one place a
 * CLI's lift is taken at once; without one, the person is asked in the window (issue 41).
 */
async function liftInTerminal(
  cluster: GuardedCluster,
  duration: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const session = inTerminal(
    [process.execPath, KUBECRED_CLI, 'guard', 'prod', 'off', '--for', duration],
    brokerEnv(cluster.home.dir),
  );
  const { code } = await session.exited;
  return { code, stdout: session.screen(), stderr: '' };
}

function transcript(command: string, result: { code: number | null; stdout: string; stderr: string }): void {
  process.stdout.write(
    `journey guard: $ ${command}  (exit ${result.code})\n${`${result.stdout}${result.stderr}`.trim()}\n`,
  );
}

// Issue 33: a profile whose own token goes to the cluster from kubecred-proxy, and a guard in
// the proxy that sees every client's real requests: kubectl, client-go, client-node.
describe('a token profile through the exec proxy, guarded read-only, against a real kube-apiserver', () => {
  let cluster: GuardedCluster;
  let clientGo: string;

  beforeAll(async () => {
    [cluster, clientGo] = await Promise.all([
      startGuardedCluster({
        profile: 'prod',
        users: [
          { token: ERIN_TOKEN, user: 'erin', groups: ['ops'] },
          { token: FRANK_TOKEN, user: 'frank', groups: ['ops'] },
        ],
        kubectl: KUBECTL.path,
        guard: 'read-only',
      }),
      buildClientGo(),
    ]);
    for (const object of [configMap('keep', { v: '1' }), configMap('gone', { v: '1' })])
      expect((await cluster.admin(['apply', '-f', '-'], object)).code).toBe(0);
    const deployment = await cluster.admin(['create', 'deployment', 'web', '--image=nginx', '--replicas=1']);
    expect(deployment.code, deployment.stderr).toBe(0);
  }, 300_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  const refusedByReadOnly = (result: { code: number | null; stderr: string }) => {
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('Error from server (Forbidden)');
    expect(result.stderr).toContain('kubecred guard refused');
    expect(result.stderr).toContain('rule "read-only"');
    expect(result.stderr).toContain(LIFT);
  };

  it('reaches the server as its own user, and the kubeconfig holds no credential of it', async () => {
    const whoami = await cluster.kubectl([...WHOAMI_ARGS]);
    transcript('kubectl auth whoami', whoami);
    expect(whoami.stdout).toBe('erin');
    const kubeconfig = await readFile(cluster.kubeconfig, 'utf8');
    expect(kubeconfig).not.toContain(ERIN_TOKEN);
    expect(kubeconfig).toContain(`https://127.0.0.1:${cluster.port}`);
    const raw = await cluster.kubectl(['config', 'view', '--raw']);
    expect(raw.stdout).not.toContain(ERIN_TOKEN);
  });

  it('refuses kubectl delete, apply, scale and exec, saying which rule and how to lift it', async () => {
    const attempts: Array<[string, string[], string?]> = [
      ['kubectl delete configmap keep', ['delete', 'configmap', 'keep']],
      ['kubectl apply -f cm.json', ['apply', '-f', '-'], configMap('keep', { v: '2' })],
      ['kubectl scale deployment web --replicas=3', ['scale', 'deployment', 'web', '--replicas=3']],
      ['kubectl exec app -- echo hi', ['exec', 'app', '--', 'echo', 'hi']],
    ];
    for (const [command, args, stdin] of attempts) {
      const result = await cluster.kubectl(args, stdin);
      transcript(command, result);
      refusedByReadOnly(result);
    }
    // The SPDY exec of older kubectl builds is a POST, the WebSocket one a GET: both are refused.
    const spdy = await cluster.kubectl(['exec', 'app', '--', 'echo', 'hi'], undefined, {
      KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false',
    });
    refusedByReadOnly(spdy);
    expect((await cluster.admin(['get', 'configmap', 'keep', '-o', 'jsonpath={.data.v}'])).stdout).toBe('1');
    expect((await cluster.admin(['get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas}'])).stdout).toBe('1');
  });

  it('lets get, logs and diff (a server-side dry run) through', async () => {
    const got = await cluster.kubectl(['get', 'configmaps', '-o', 'name']);
    transcript('kubectl get configmaps -o name', got);
    expect(got.stdout).toContain('configmap/keep');
    const logs = await cluster.kubectl(['logs', 'app']);
    transcript('kubectl logs app', logs);
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout).toContain('log line');
    const diff = await cluster.kubectl(['diff', '-f', '-'], configMap('keep', { v: '2' }));
    transcript('kubectl diff -f cm.json', diff);
    // diff exits 1 when it found differences, and only then.
    expect(diff.code, diff.stderr).toBe(1);
    expect(diff.stdout).toMatch(/-\s+v: "1"[\s\S]*\+\s+v: "2"/);
    expect((await cluster.admin(['get', 'configmap', 'keep', '-o', 'jsonpath={.data.v}'])).stdout).toBe('1');
  });

  it('refuses a client-go program the same way, as a Forbidden Status naming the rule; its list goes through', async () => {
    const listed = await runClientGo(clientGo, cluster.kubeconfig, cluster.env, { args: ['list-configmaps'] });
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).names).toContain('keep');
    const deleted = await runClientGo(clientGo, cluster.kubeconfig, cluster.env, {
      args: ['delete-configmap', 'keep'],
    });
    transcript('clientgo delete-configmap keep', deleted);
    expect(deleted.code).toBe(1);
    const status = JSON.parse(deleted.stdout) as { code: number; reason: string; message: string; forbidden: boolean };
    expect(status).toMatchObject({ code: 403, reason: 'Forbidden', forbidden: true });
    expect(status.message).toContain('rule "read-only"');
    expect(status.message).toContain(LIFT);
  });

  it('refuses a client-node program the same way; its list goes through', async () => {
    const core = clientNodeConfig(cluster.kubeconfig, cluster.env).makeApiClient(CoreV1Api);
    const list = await core.listNamespacedConfigMap({ namespace: 'default' });
    expect(list.items.map((item) => item.metadata?.name)).toContain('keep');
    const refusal = await core.deleteNamespacedConfigMap({ name: 'keep', namespace: 'default' }).then(
      () => undefined,
      (error: { code?: number; body?: unknown }) => error,
    );
    expect(refusal?.code).toBe(403);
    const body = JSON.parse(String(refusal?.body)) as { message: string; reason: string };
    process.stdout.write(
      `journey guard: client-node deleteNamespacedConfigMap(keep): ${refusal?.code} ${body.message}\n`,
    );
    expect(body.reason).toBe('Forbidden');
    expect(body.message).toContain(LIFT);
  });

  it('kubecred guard prod off --for lets a delete through, and the guard comes back by itself', async () => {
    const lifted = await liftInTerminal(cluster, '4s');
    transcript('kubecred guard prod off --for 4s', lifted);
    expect(lifted.code, lifted.stderr).toBe(0);
    expect(lifted.stdout).toContain('guard of prod: lifted until');
    const deleted = await cluster.kubectl(['delete', 'configmap', 'gone']);
    transcript('kubectl delete configmap gone   (guard lifted)', deleted);
    expect(deleted.code, deleted.stderr).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    const state = await cluster.cli(['guard', 'prod']);
    expect(state.stdout).toContain('guard of prod: on (1 rule)');
    const again = await cluster.kubectl(['delete', 'configmap', 'keep']);
    transcript('kubectl delete configmap keep   (4 s later)', again);
    refusedByReadOnly(again);
  });

  it('every decision is in the audit trail: refused by which rule, allowed while lifted, the lift itself', async () => {
    const records = (await readFile(path.join(cluster.home.dir, 'state', 'audit.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            outcome: string;
            guard?: { decision: string; rule?: string };
            request?: { verb?: string; resource?: string; name?: string };
          },
      );
    expect(records).toContainEqual(
      expect.objectContaining({
        outcome: 'denied',
        guard: { decision: 'refused', rule: 'read-only' },
        request: expect.objectContaining({ verb: 'delete', resource: 'configmaps', name: 'keep' }),
      }),
    );
    expect(records).toContainEqual(
      expect.objectContaining({ guard: { decision: 'unlocked' }, request: expect.objectContaining({ name: 'gone' }) }),
    );
    expect(records.some((record) => record.guard?.decision === 'lifted')).toBe(true);
    expect(JSON.stringify(records)).not.toContain(ERIN_TOKEN);
  });

  it('a new token reaches the proxy: a client holding its local certificate is the new user without running the plugin again', async () => {
    const config = clientNodeConfig(cluster.kubeconfig, cluster.env);
    const whoami = async () =>
      (await config.makeApiClient(AuthenticationV1Api).createSelfSubjectReview({ body: {} })).status?.userInfo
        ?.username;
    expect(await whoami()).toBe('erin');
    const pluginRuns = await shimServed(cluster);
    const stored = await cluster.cli(['secret', 'set', 'prod', 'token'], FRANK_TOKEN);
    expect(stored.code, stored.stderr).toBe(0);
    expect(await whoami()).toBe('frank');
    expect(await shimServed(cluster)).toBe(pluginRuns);
    expect(cluster.broker.output()).not.toContain(FRANK_TOKEN);
  });

  it('kubecred lock ends a watch through the proxy at once, and the guard, lifted before, is back', async () => {
    expect((await liftInTerminal(cluster, '10m')).code).toBe(0);
    const watch = startKubectl(KUBECTL.path, ['get', 'configmaps', '-w'], cluster);
    try {
      await watch.waitFor(/keep/, 15_000);
      const locked = await cluster.cli(['lock']);
      expect(locked.code, locked.stderr).toBe(0);
      await watch.exited(5_000);
    } finally {
      watch.stop();
    }
    expect((await cluster.cli(['guard', 'prod'])).stdout).toContain('guard of prod: on');
    refusedByReadOnly(await cluster.kubectl(['delete', 'configmap', 'keep']));
  });

  it('kubecred logout ends what a program holds: its next request is told why, and kubectl logs in anew', async () => {
    // A user name of its own: client-node would show the certificate an earlier test's lock ended.
    const config = clientNodeConfig(cluster.kubeconfig, cluster.env, { userName: 'prod-after-lock' });
    const core = config.makeApiClient(CoreV1Api);
    expect((await core.listNamespacedConfigMap({ namespace: 'default' })).items.length).toBeGreaterThan(0);
    expect((await cluster.cli(['logout', 'prod'])).code).toBe(0);
    const ended = await core.listNamespacedConfigMap({ namespace: 'default' }).then(
      () => undefined,
      (error: { code?: number; body?: unknown }) => error,
    );
    expect(ended?.code).toBe(503);
    expect(String(ended?.body)).toContain('profile prod was logged out of Kubecred');
    // A static profile's token is still in the keychain: the next kubectl gets a new certificate.
    const again = await cluster.kubectl([...WHOAMI_ARGS]);
    expect(again.stdout, again.stderr).toBe('frank');
  });
});

/** How many credentials the broker served to an exec plugin: one per plugin run. */
async function shimServed(cluster: GuardedCluster): Promise<number> {
  const lines = (await readFile(path.join(cluster.home.dir, 'state', 'audit.jsonl'), 'utf8')).trim().split('\n');
  return lines.filter((line) => {
    const record = JSON.parse(line) as { outcome: string; request?: unknown; caller: { client: string } };
    return (
      record.outcome === 'served' &&
      !record.request &&
      record.caller.client !== 'kubecred-proxy' &&
      record.caller.client !== 'kubecred'
    );
  }).length;
}
