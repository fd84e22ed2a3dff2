import type { ProfileConfig } from '../../shared/config/schema.js';
import { BrokerError } from '../core/brokerError.js';

/**
 * Refuses a secret the profile's provider never reads: stored under any other name it would sit
 * in the keychain unused while kubectl keeps failing. The broker refuses it on store, and
 * `kubecred secret set` before it asks for the value.
 */
export function refuseUnreadSecretField(profile: ProfileConfig, field: string, read: readonly string[]): void {
  if (read.includes(field)) return;
  throw new BrokerError(
    'bad-request',
    `profile "${profile.name}" (${profile.provider}) never reads a secret named "${field}"`,
    read.length
      ? `its provider reads: ${read.join(', ')}`
      : `an ${profile.provider} profile keeps no secrets in Kubecred: its plugin has its own`,
  );
}
