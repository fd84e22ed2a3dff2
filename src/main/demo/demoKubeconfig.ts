import { kubecredExecBlock } from '../kubeconfig/kubecredExec.js';

/** A kubeconfig whose only credentials are calls to Kubecred, one context per profile (JSON is valid YAML). */
export function demoKubeconfig({
  server,
  caPem,
  command,
  home,
  profiles,
}: {
  server: string;
  caPem: string;
  command: string;
  home: string;
  profiles: readonly string[];
}): string {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'kubecred-demo',
        cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') },
      },
    ],
    users: profiles.map((profile) => ({
      name: `kubecred-${profile}`,
      // The demo's broker lives in its own home, so the block names it for the shim.
      user: { exec: kubecredExecBlock({ command, profile, env: [{ name: 'KUBECRED_HOME', value: home }] }) },
    })),
    contexts: profiles.map((profile) => ({
      name: `kubecred-${profile}`,
      context: { cluster: 'kubecred-demo', user: `kubecred-${profile}` },
    })),
    'current-context': `kubecred-${profiles[0] ?? 'demo'}`,
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}
