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
    const entry = await this.entry(ref);
    try {
      return (await entry.getPassword()) ?? undefined;
    } catch (error) {
      throw this.unavailable('read', ref, error);
    }
  }

  async set(ref: SecretRef, value: string): Promise<void> {
    const entry = await this.entry(ref);
    try {
      await entry.setPassword(value);
    } catch (error) {
      throw this.unavailable('store', ref, error);
    }
  }

  async delete(ref: SecretRef): Promise<boolean> {
    const entry = await this.entry(ref);
    try {
      return await entry.deleteCredential();
    } catch (error) {
      throw this.unavailable('delete', ref, error);
    }
  }

  private async entry(ref: SecretRef) {
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
    return new keyring.AsyncEntry(SERVICE, `${ref.profile}/${ref.field}`);
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
