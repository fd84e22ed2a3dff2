import type { ProfileConfig } from '../../shared/config/schema.js';
import { BrokerError } from '../core/brokerError.js';

/**
 * What to do about a profile that has no guard, by the commands and buttons that exist rather
 * than hand-written config.yaml: a guard works in the exec proxy, so a profile not proxied yet
 * first turns the proxy on. `context` is the kubeconfig context to name, where the caller knows it.
 */
export function noGuardError(profile: Pick<ProfileConfig, 'name' | 'proxy'>, context = '<context>'): BrokerError {
  if (!profile.proxy)
    return new BrokerError(
      'bad-request',
      `profile "${profile.name}" has no guard: a guard works in the exec proxy, which this profile does not go through yet`,
      `turn the proxy on with: kubecred install --profile ${profile.name} --context ${context} --proxy (or "Turn on the exec proxy" on its page in the Kubecred window), then "Add a guard" on that page`,
    );
  return new BrokerError(
    'bad-request',
    `profile "${profile.name}" has no guard`,
    `add one with "Add a guard" on its page in the Kubecred window, or write "guard: read-only" under the profile in config.yaml`,
  );
}
