import { KubeConfig } from '@kubernetes/client-node';

/**
 * A kubeconfig installed by Kubecred as @kubernetes/client-node loads it. client-node sends no
 * KUBERNETES_EXEC_INFO, so the plugin is told its API version; `env` reaches the plugin.
 * `context`: another than the kubeconfig's current one. `userName`: client-node keeps exec
 * credentials by user name for its whole process, so a program that must run the plugin anew
 * (not show what an earlier one got) needs a user name of its own.
 */
export function clientNodeConfig(
  kubeconfig: string,
  env: Readonly<Record<string, string>>,
  options: { readonly context?: string; readonly userName?: string } = {},
): KubeConfig {
  const loaded = new KubeConfig();
  loaded.loadFromFile(kubeconfig);
  const context = options.context ?? loaded.getCurrentContext();
  const userOf = loaded.getContextObject(context)!.user;
  const name = options.userName ?? userOf;
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: loaded.clusters,
    users: loaded.users.map((user) => {
      if (user.name !== userOf || !user.exec) return user;
      const exec = user.exec as { args: string[] };
      return {
        ...user,
        name,
        exec: {
          ...user.exec,
          args: [...exec.args, '--api-version', 'client.authentication.k8s.io/v1'],
          env: Object.entries(env).map(([key, value]) => ({ name: key, value })),
        },
      };
    }),
    contexts: loaded.contexts.map((c) => (c.name === context ? { ...c, user: name } : c)),
    currentContext: context,
  });
  return config;
}
