import type { ProxySettings } from '../platform/proxyEnvironment.js';
import type { ProxiedProfile } from './proxiedProfile.js';

/** A listen's upstream proxy, as kubecred-proxy reads it: the profile's proxyUrl and a kept password. */
export interface UpstreamProxy {
  readonly url?: string;
  readonly password?: string;
}

/**
 * What kubecred-proxy needs to reach a profile's cluster through a proxy beyond its own
 * environment: the profile's `proxyUrl` (as kubeconfig's proxy-url; config.yaml holds no password
 * in it), and where that URL, or else the environment's proxy for the cluster, names a user
 * only, the password the profile's keychain keeps. The password goes over the control channel
 * only, never on a command line or in an environment. Undefined: the environment as it is.
 */
export async function upstreamProxy(
  profile: ProxiedProfile,
  environment: ProxySettings,
  keptPassword: () => Promise<string | undefined>,
): Promise<UpstreamProxy | undefined> {
  const proxy = profile.proxyUrl ? new URL(profile.proxyUrl) : environment.proxyFor(new URL(profile.server));
  // Read only where it is used: a profile without a proxy user costs no keychain look-up.
  const password = proxy?.username && !proxy.password ? await keptPassword() : undefined;
  if (!profile.proxyUrl && !password) return undefined;
  return { ...(profile.proxyUrl ? { url: profile.proxyUrl } : {}), ...(password ? { password } : {}) };
}
