/** A kubeconfig whose only credential is a call to Kubecred (JSON is valid YAML). */
export function demoKubeconfig({ server, caPem, command, home }: { server: string; caPem: string; command: string; home: string }): string {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kubecred-demo', cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }],
    users: [
      {
        name: 'kubecred-demo',
        user: {
          exec: {
            apiVersion: 'client.authentication.k8s.io/v1',
            command,
            args: ['credential', 'demo'],
            env: [{ name: 'KUBECRED_HOME', value: home }],
            interactiveMode: 'IfAvailable',
            provideClusterInfo: true,
            installHint: 'This kubeconfig uses Kubecred (kubecred credential). Install Kubecred, or ask for a kubeconfig with your own credentials.',
          },
        },
      },
    ],
    contexts: [{ name: 'kubecred-demo', context: { cluster: 'kubecred-demo', user: 'kubecred-demo' } }],
    'current-context': 'kubecred-demo',
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}
