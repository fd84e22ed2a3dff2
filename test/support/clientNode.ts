import { KubeConfig } from '@kubernetes/client-node';

/**
 * A kubeconfig installed by Kubecred as @kubernetes/client-node loads it. client-node sends no
 * KUBERNETES_EXEC_INFO, so the plugin is told its API version; `env` reaches the plugin. `context`:
 * another than the kubeconfig's current one.
 */
export function clientNodeConfig(
  kubeconfig: string,
  env: Readonly<Record<string, string>>,
  context?: string,
): KubeConfig {
  const config = new KubeConfig();
  config.loadFromFile(kubeconfig);
  if (context) config.setCurrentContext(context);
  const user = config.getCurrentUser() as { exec: { args: string[]; env?: { name: string; value: string }[] } };
  user.exec.args = [...user.exec.args, '--api-version', 'client.authentication.k8s.io/v1'];
  user.exec.env = Object.entries(env).map(([name, value]) => ({ name, value }));
  return config;
}
