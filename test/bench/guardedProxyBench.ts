import path from 'node:path';
import type { KubectlBuild } from '../support/kubectl.js';
import { startGuardedCluster } from '../support/guardedCluster.js';
import { writeTokenKubeconfig } from '../support/kubeconfig.js';
import { summarize, type Stats } from './stats.js';
import { interleave, type Subject } from './timeCommand.js';

const TOKEN = 'bench-guarded-token-7c1e0a9d3f5b';

export interface GuardedProxyBench {
  readonly inline: Stats;
  readonly viaProxy: Stats;
  /** Through the proxy (guard on) / the same kubectl with the token inline, at p50. */
  readonly ratioP50: number;
}

/**
 * Issue 33's cost: warm `kubectl get --raw /version` for a token profile through kubecred-proxy
 * with a read-only guard (the shim, the local mTLS hop, the guard's decision, the token added
 * upstream), beside the same kubectl with the token inline, against a real kube-apiserver.
 */
export async function guardedProxyBench(kubectl: KubectlBuild, runs: number): Promise<GuardedProxyBench> {
  const cluster = await startGuardedCluster({
    profile: 'bench',
    users: [{ token: TOKEN, user: 'bench', groups: ['system:masters'] }],
    kubectl: kubectl.path,
    guard: 'read-only',
  });
  try {
    const inline = await writeTokenKubeconfig({
      path: path.join(cluster.home.dir, 'kubeconfig-inline'),
      server: cluster.api.url,
      caPem: cluster.api.caPem,
      token: TOKEN,
    });
    const args = ['get', '--raw', '/version'];
    const subjects: Subject[] = [
      {
        name: `${kubectl.name} get --raw /version, token inline`,
        command: kubectl.path,
        args,
        env: { ...process.env, KUBECONFIG: inline },
      },
      {
        name: `${kubectl.name} get --raw /version, token profile through kubecred-proxy (guard on)`,
        command: kubectl.path,
        args,
        env: { ...process.env, ...cluster.env, KUBECONFIG: cluster.kubeconfig },
      },
    ];
    const samples = await interleave(subjects, runs, 3);
    const [inlineStats, proxyStats] = subjects.map((s) => summarize(samples.get(s.name)!));
    return { inline: inlineStats!, viaProxy: proxyStats!, ratioP50: proxyStats!.p50 / inlineStats!.p50 };
  } finally {
    await cluster.stop();
  }
}
