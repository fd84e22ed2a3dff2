import path from 'node:path';
import type { KubecredConfig } from '../../shared/config/schema.js';
import type { ConfigPort } from '../core/ports.js';
import type { SecretPromptPort } from '../core/uiPorts.js';
import { EncryptedFileStore } from './encryptedFile/encryptedFileStore.js';
import type { SecretStore } from '../core/secretStore.js';

/** The PKCS#11 side as the store router needs it; the plugin behind it loads lazily. */
export interface TokenStores {
  secretStore(tokenName: string): SecretStore;
}

export interface SecretStoresOptions {
  readonly config: ConfigPort;
  readonly home: string;
  readonly keychain: SecretStore;
  readonly ui: SecretPromptPort;
  readonly tokens: (config: KubecredConfig) => TokenStores;
}

/**
 * Picks the store that holds a profile's secrets: the profile's own secretStore, else the
 * config's default. Stores are made on first use, so a broker that never touches a token
 * or the encrypted file never loads either.
 */
export class SecretStores {
  private encrypted: EncryptedFileStore | undefined;

  constructor(private readonly options: SecretStoresOptions) {}

  async forProfile(profileName: string): Promise<SecretStore> {
    const { config } = await this.options.config.current();
    const profile = config.profiles.find((p) => p.name === profileName);
    const ref = (profile && 'secretStore' in profile ? profile.secretStore : undefined) ?? config.secretStore;
    if (ref === 'keychain') return this.options.keychain;
    if (ref === 'encrypted-file') return this.encryptedFile(config);
    return this.options.tokens(config).secretStore(ref.slice('token:'.length));
  }

  /** The encrypted file store of the current config (its path may have changed). */
  encryptedFile(config: KubecredConfig): EncryptedFileStore {
    const file = path.resolve(this.options.home, config.encryptedFile?.path ?? path.join('state', 'secrets.enc'));
    if (this.encrypted?.file !== file) {
      this.encrypted?.lock();
      this.encrypted = new EncryptedFileStore(file, this.options.ui);
    }
    return this.encrypted;
  }

  lockEncryptedFile(): void {
    this.encrypted?.lock();
  }
}
