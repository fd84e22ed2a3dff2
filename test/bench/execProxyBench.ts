import { readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import type { ProxyStatus } from '../../src/main/proxy/proxySupervisor.js';
import type { KubectlBuild } from '../support/kubectl.js';
import { startProxiedCluster, type ProxiedCluster } from '../support/proxiedCluster.js';
import { startTestNode } from '../support/testKubelet.js';
import { summarize, type Stats } from './stats.js';
import { interleave, type Subject } from './timeCommand.js';

const PIN = '112358';
const REQUESTS = 10_000;
const CONCURRENCY = 16;
/** One request in this many opens a connection of its own; the rest share kept-alive ones. */
const NEW_CONNECTION_EVERY = 10;
const EXEC_SESSIONS = 100;

export interface ProxyLoad {
  readonly requests: number;
  readonly newConnections: number;
  readonly execSessions: number;
  readonly failures: number;
  readonly seconds: number;
  readonly before: { readonly goroutines: number; readonly openFiles: number };
  readonly after: { readonly goroutines: number; readonly openFiles: number };
}

export interface ExecProxyBench {
  readonly viaProxy: Stats;
  readonly direct: Stats;
  /** Through the proxy / direct mTLS with a key file, at p50. */
  readonly ratioP50: number;
  readonly proxyIdleRssMiB: number;
  readonly load: ProxyLoad;
}

/**
 * Issue 15's speed and memory targets: warm `kubectl get --raw /version` through
 * kubecred-proxy (RSA-2048 on SoftHSM2) against a real kube-apiserver, beside the same kubectl
 * doing mTLS itself with a key file; the proxy's resident memory afterwards; and its goroutines
 * and open files before and after 10,000 requests and 100 exec sessions.
 */
export async function execProxyBench(kubectl: KubectlBuild, runs: number): Promise<ExecProxyBench> {
  const cluster = await startProxiedCluster({
    users: [{ profile: 'bench', label: 'tls', id: '01', keyType: 'rsa:2048', user: 'bench', group: 'system:masters' }],
    pin: PIN,
  });
  const node = await startTestNode({
    dir: path.join(cluster.home.dir, 'node'),
    pki: cluster.pki,
    adminKubeconfig: cluster.adminKubeconfig,
    kubectl: kubectl.path,
  });
  try {
    const args = ['get', '--raw', '/version'];
    const env = { ...process.env, ...cluster.env };
    const subjects: Subject[] = [
      // The cluster's admin: the same kubectl doing the mTLS itself with a key file.
      {
        name: `${kubectl.name} get --raw /version, mTLS with a key file`,
        command: kubectl.path,
        args,
        env: { ...env, KUBECONFIG: cluster.adminKubeconfig },
      },
      {
        name: `${kubectl.name} get --raw /version, through kubecred-proxy`,
        command: kubectl.path,
        args,
        env: { ...env, KUBECONFIG: cluster.kubeconfig },
      },
    ];
    const samples = await interleave(subjects, runs, 3);
    const [directStats, proxyStats] = subjects.map((s) => summarize(samples.get(s.name)!));
    const idle = await proxyStatus(cluster);
    const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${idle.pid}/status`, 'utf8'))?.[1] ?? NaN);
    const load = await loadProxy(cluster, kubectl, idle);
    return {
      viaProxy: proxyStats!,
      direct: directStats!,
      ratioP50: proxyStats!.p50 / directStats!.p50,
      proxyIdleRssMiB: rssKiB / 1024,
      load,
    };
  } finally {
    await node.stop();
    await cluster.stop();
  }
}

async function loadProxy(cluster: ProxiedCluster, kubectl: KubectlBuild, idle: ProxyStatus): Promise<ProxyLoad> {
  const credential = JSON.parse((await cluster.credential('bench')).stdout).status as {
    clientCertificateData: string;
    clientKeyData: string;
  };
  const tls = {
    ca: (await cluster.cli(['proxy', 'ca'])).stdout,
    cert: credential.clientCertificateData,
    key: credential.clientKeyData,
  };
  const kept = new https.Agent({ ...tls, keepAlive: true, maxSockets: CONCURRENCY });
  const port = cluster.ports.get('bench')!;
  let failures = 0;
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    for (let i = next++; i < REQUESTS; i = next++) {
      const fresh = i % NEW_CONNECTION_EVERY === 0;
      const status = await get(port, '/version', fresh ? { ...tls, agent: false } : { agent: kept }).catch(() => 0);
      if (status !== 200) failures++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  kept.destroy();
  for (let i = 0; i < EXEC_SESSIONS; i++) {
    const exec = await cluster.kubectl(kubectl.path, ['exec', '-i', 'app', '--', 'cat'], {}, `session ${i}\n`);
    if (exec.code !== 0 || exec.stdout !== `session ${i}\n`) failures++;
  }
  const seconds = (performance.now() - started) / 1000;
  // Connections the clients closed take a moment to be noticed and given back.
  const deadline = Date.now() + 15_000;
  let after = await proxyStatus(cluster);
  while (Date.now() < deadline && (after.goroutines! > idle.goroutines! || after.openFiles! > idle.openFiles!)) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    after = await proxyStatus(cluster);
  }
  return {
    requests: REQUESTS,
    newConnections: Math.ceil(REQUESTS / NEW_CONNECTION_EVERY),
    execSessions: EXEC_SESSIONS,
    failures,
    seconds,
    before: { goroutines: idle.goroutines!, openFiles: idle.openFiles! },
    after: { goroutines: after.goroutines!, openFiles: after.openFiles! },
  };
}

async function proxyStatus(cluster: ProxiedCluster): Promise<ProxyStatus> {
  const answer = await cluster.cli(['proxy', 'status', '-o', 'json']);
  const status = JSON.parse(answer.stdout) as ProxyStatus;
  if (!status.running) throw new Error(`kubecred-proxy is not running: ${answer.stdout}${answer.stderr}`);
  return status;
}

function get(port: number, requestPath: string, options: https.RequestOptions): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = https.get(
      { host: '127.0.0.1', port, path: requestPath, servername: 'localhost', ...options },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
  });
}
