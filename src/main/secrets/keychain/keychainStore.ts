import type * as KeyringModuleNs from '@napi-rs/keyring';
import { BrokerError } from '../../broker/brokerError.js';
import type { SecretRef, SecretStore } from '../secretStore.js';

type KeyringModule = typeof KeyringModuleNs;

const SERVICE = 'kubecred';

const FIX_BY_PLATFORM: Partial<Record<NodeJS.Platform, string>> = {
  linux:
    'start a Secret Service (GNOME Keyring or KWallet) in your desktop session and unlock it; on a headless machine run `dbus-run-session` with gnome-keyring-daemon --unlock',
  darwin: 'unlock the login keychain (Keychain Access) and allow Kubecred when macOS asks',
  win32: 'check that the Credential Manager service is running',
};

/**
 * The OS keychain: Secret Service on Linux, Keychain on macOS, Credential Manager on
 * Windows, through @napi-rs/keyring (Node-API, prebuilt, no rebuild per Electron).
 * The native module is loaded on first use so a broker that never touches it never pays.
 */
export class KeychainStore implements SecretStore {
  readonly name = 'keychain';
  private keyring: Promise<KeyringModule> | undefined;

  constructor(private readonly platform: NodeJS.Platform = process.platform) {}

  async get(ref: SecretRef): Promise<string | undefined> {
    return this.withEntry('read', ref, async (entry) => (await entry.getPassword()) ?? undefined);
  }

  async set(ref: SecretRef, value: string): Promise<void> {
    await this.withEntry('store', ref, (entry) => entry.setPassword(value));
  }

  async delete(ref: SecretRef): Promise<boolean> {
    return this.withEntry('delete', ref, (entry) => entry.deleteCredential());
  }

  /**
   * A fresh entry per operation: an entry made before a Secret Service restart stays broken.
   * On Linux the entry is pinned to the Secret Service, because the library's default falls
   * back to the kernel keyring, where a missing keychain would look like a missing secret.
   */
  private async withEntry<T>(action: string, ref: SecretRef, use: (entry: InstanceType<KeyringModule['AsyncEntry']>) => Promise<T>): Promise<T> {
    const keyring = await this.module();
    try {
      const entry = new keyring.AsyncEntry(SERVICE, `${ref.profile}/${ref.field}`, this.platform === 'linux' ? { linux: { store: 'secret-service' } } : undefined);
      return await use(entry);
    } catch (error) {
      throw this.unavailable(action, ref, error);
    }
  }

  private async module(): Promise<KeyringModule> {
    this.keyring ??= import('@napi-rs/keyring');
    let keyring: KeyringModule;
    try {
      keyring = await this.keyring;
    } catch (error) {
      this.keyring = undefined;
      throw new BrokerError(
        'secret-store-unavailable',
        `the OS keychain module could not be loaded (${(error as Error).message})`,
        'reinstall Kubecred; the keychain support ships as a prebuilt @napi-rs/keyring binary for this platform',
      );
    }
    return keyring;
  }

  private unavailable(action: string, ref: SecretRef, error: unknown): BrokerError {
    const cause = String((error as Error)?.message ?? error).split('\n')[0];
    return new BrokerError(
      'secret-store-unavailable',
      `the OS keychain could not ${action} ${ref.profile}/${ref.field}: ${cause}`,
      FIX_BY_PLATFORM[this.platform] ?? 'check that the OS keychain is available and unlocked',
    );
  }
}
