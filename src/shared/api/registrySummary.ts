import type { RegistrySummary } from './status.js';
import type { RegistryConfig } from '../config/schema.js';

/**
 * What `kubecred status` and the UI show of a registry, from config.yaml alone: where its login
 * comes from is known without asking the secret store, which may be locked behind a prompt.
 */
export function summarizeRegistry(registry: RegistryConfig): RegistrySummary {
  return {
    name: registry.name,
    matchImages: [...registry.matchImages],
    login: registry.passwordCommand ? 'command' : 'store',
    ...(registry.username ? { username: registry.username } : {}),
  };
}
