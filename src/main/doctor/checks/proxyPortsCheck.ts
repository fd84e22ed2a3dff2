import type { KubecredConfig } from '../../../shared/config/schema.js';
import { fail, ok, type Check, type Finding } from '../finding.js';

/** Who answers on a loopback port: nobody, kubecred-proxy, or another program. */
export type PortHolder = 'free' | 'kubecred-proxy' | 'another program';

/** The profiles that go through kubecred-proxy, with their ports. */
export function proxiedPorts(config: KubecredConfig | undefined): { profile: string; port: number }[] {
  return (config?.profiles ?? []).flatMap((p) => (p.proxy ? [{ profile: p.name, port: p.proxy.port }] : []));
}

/**
 * Each proxied profile's port must be free or kubecred-proxy's own: kubectl's kubeconfig names
 * it, so another program there would get kubectl's requests (and its local certificate).
 */
export function proxyPortsCheck(
  ports: readonly { profile: string; port: number }[],
  holder: (port: number) => Promise<PortHolder>,
): Check {
  return {
    name: 'proxy',
    async run(): Promise<Finding[]> {
      return Promise.all(
        ports.map(async ({ profile, port }) => {
          const title = `proxy port ${port} (${profile})`;
          const held = await holder(port);
          if (held === 'another program') {
            return fail(
              title,
              `127.0.0.1:${port} is in use by another program, so kubecred-proxy cannot serve profile ${profile} there`,
              `stop that program, or give profile ${profile} another proxy port in config.yaml and run kubecred install --profile ${profile} again`,
            );
          }
          return ok(
            title,
            held === 'free' ? "free: kubecred-proxy opens it on the profile's first use" : 'served by kubecred-proxy',
          );
        }),
      );
    },
  };
}
