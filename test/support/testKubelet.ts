import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { runKubectl } from './kubectl.js';
import { stopChild } from './kubeApiServer.js';
import type { TestPki } from './pki.js';
import { REPO_ROOT } from './repo.js';

/** Built by scripts/setup-tests.sh (npm test runs it) from test/kubelet: the kubelet's own streaming code, commands run locally. */
export const TEST_KUBELET = path.join(REPO_ROOT, 'dist', 'test', 'test-kubelet');

export interface TestNode {
  readonly name: string;
  /** The directory every command run in a container starts in. */
  readonly root: string;
  stop(): Promise<void>;
}

/**
 * A node for the real API server: the test kubelet on loopback, registered as Node `name`
 * with its port, and a Running pod `pod` with one container `app` bound to it, so
 * `kubectl exec/attach/cp/port-forward/logs` go kubectl -> API server -> this node.
 */
export async function startTestNode(options: {
  dir: string;
  pki: TestPki;
  adminKubeconfig: string;
  kubectl: string;
  name?: string;
  pod?: string;
}): Promise<TestNode> {
  if (!existsSync(TEST_KUBELET))
    throw new Error(`no ${TEST_KUBELET}: run scripts/setup-tests.sh (npm test runs it; it builds test/kubelet)`);
  const { dir, pki, adminKubeconfig, kubectl } = options;
  const name = options.name ?? 'test-node';
  const root = path.join(dir, 'root');
  await mkdir(root, { recursive: true, mode: 0o700 });
  const kubelet = spawn(
    TEST_KUBELET,
    [
      '--listen',
      '127.0.0.1:0',
      '--cert',
      pki.serverCertPath,
      '--key',
      pki.serverKeyPath,
      '--client-ca',
      pki.caCertPath,
      '--root',
      root,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  kubelet.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const port = await listeningPort(kubelet, () => stderr);

  const admin = async (args: string[], stdin?: string) => {
    const result = await runKubectl(kubectl, args, { kubeconfig: adminKubeconfig, stdin });
    if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} (as the cluster's admin): ${result.stderr}`);
    return result.stdout;
  };
  // Status is a subresource: the node's address and kubelet port, and the pod's phase, are set
  // as a kubelet would set them. No controller manager runs, so the service account is made here.
  await admin(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name } }));
  await admin([
    'patch',
    'node',
    name,
    '--subresource=status',
    '--type=merge',
    '-p',
    JSON.stringify({
      status: {
        addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
        daemonEndpoints: { kubeletEndpoint: { Port: port } },
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'KubeletReady',
            message: 'test kubelet',
            lastHeartbeatTime: new Date().toISOString(),
            lastTransitionTime: new Date().toISOString(),
          },
        ],
      },
    }),
  ]);
  await admin(['create', 'serviceaccount', 'default', '--dry-run=client', '-o', 'json']).then((sa) =>
    admin(['apply', '-f', '-'], sa),
  );
  const pod = options.pod ?? 'app';
  await admin(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: pod, namespace: 'default' },
      spec: {
        nodeName: name,
        automountServiceAccountToken: false,
        containers: [{ name: 'app', image: 'kubecred.test/local:1', ports: [{ containerPort: 8080 }] }],
      },
    }),
  );
  const now = new Date().toISOString();
  await admin([
    'patch',
    'pod',
    pod,
    '--subresource=status',
    '--type=merge',
    '-p',
    JSON.stringify({
      status: {
        phase: 'Running',
        podIP: '10.0.0.10',
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [
          {
            name: 'app',
            ready: true,
            restartCount: 0,
            image: 'kubecred.test/local:1',
            imageID: '',
            started: true,
            state: { running: { startedAt: now } },
          },
        ],
      },
    }),
  ]);
  return { name, root, stop: () => stopChild(kubelet) };
}

function listeningPort(kubelet: ChildProcess, stderr: () => string): Promise<number> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`test-kubelet did not listen within 10 s: ${stderr()}`)), 10_000);
    kubelet.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /^listening [\d.]+:(\d+)$/m.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    kubelet.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`test-kubelet exited (${code}): ${stderr()}`));
    });
  });
}
