import type { KubecredConfig } from '../../shared/config/schema.js';
import { parseSecretStoreRef, type SecretStoreKind, type SecretStoreRef } from '../../shared/config/secretStoreRef.js';
import { BrokerError } from '../core/brokerError.js';
import type { ConfigPort } from '../core/ports.js';
import type { SecretStore } from '../core/secretStore.js';

/**
 * How each kind of store is reached, given the config of the moment: one entry per kind of
 * SecretStoreRef, so a new kind does not compile until it says how it is built.
 */
export type SecretStoreBuilders = {
  readonly [Kind in SecretStoreKind]: (
    ref: Extract<SecretStoreRef, { kind: Kind }>,
    config: KubecredConfig,
  ) => SecretStore;
};

/**
 * Picks the store that holds a profile's secrets: the profile's own secretStore, else the
 * config's default. The builders make stores on first use, so a broker that never touches a
 * token or the encrypted file never loads either.
 */
export class SecretStores {
  constructor(
    private readonly config: ConfigPort,
    private readonly builders: SecretStoreBuilders,
  ) {}

  async forProfile(profileName: string): Promise<SecretStore> {
    const { config } = await this.config.current();
    const profile = config.profiles.find((p) => p.name === profileName);
    const text = (profile && 'secretStore' in profile ? profile.secretStore : undefined) ?? config.secretStore;
    const ref = parseSecretStoreRef(text);
    // The schema admits only parseable references; this guards a config built by hand.
    if (!ref)
      throw new BrokerError(
        'config-invalid',
        `"${text}" is not a secret store`,
        'use keychain, encrypted-file or token:<name>',
      );
    return this.build(ref, config);
  }

  private build(ref: SecretStoreRef, config: KubecredConfig): SecretStore {
    switch (ref.kind) {
      case 'keychain':
        return this.builders.keychain(ref, config);
      case 'encrypted-file':
        return this.builders['encrypted-file'](ref, config);
      case 'token':
        return this.builders.token(ref, config);
    }
  }
}
