import type * as KeyringModuleNs from '@napi-rs/keyring';
import { BrokerError } from '../../core/brokerError.js';
import { descriptorHeadroom } from '../../platform/descriptorHeadroom.js';
import { adoptSessionBus } from '../../platform/sessionBus.js';
import type { SecretRef, SecretStore } from '../../core/secretStore.js';
import { chunkAccount, digest, parseHeader, planChunks } from './chunkedValue.js';

export type KeyringModule = Pick<typeof KeyringModuleNs, 'AsyncEntry'>;

const SERVICE = 'kubecred';
const INDEX_FIELD = '.fields';
/** What a keychain call may need: a D-Bus socket, the module's files, a thread's eventfd, and slack. */
const DESCRIPTORS_NEEDED = 32;

const FIX_BY_PLATFORM: Partial<Record<NodeJS.Platform, string>> = {
  linux:
    'start a Secret Service (GNOME Keyring or KWallet) in your desktop session and unlock it; on a headless machine run `dbus-run-session` with gnome-keyring-daemon --unlock, or set secretStore: encrypted-file in config.yaml. If your shell reaches a keychain and the broker does not, start the broker from that shell: kubecred restart',
  darwin: 'unlock the login keychain (Keychain Access) and allow Kubecred when macOS asks',
  win32: 'check that the Credential Manager service is running',
};

/**
 * The OS keychain: Secret Service on Linux, Keychain on macOS, Credential Manager on
 * Windows, through @napi-rs/keyring (Node-API, prebuilt, no rebuild per Electron). The
 * native module is loaded on first use. Large values are chunked (chunkedValue.ts); a small
 * index item per profile lists its fields, since keychains cannot be listed portably.
 */
export class KeychainStore implements SecretStore {
  readonly name = 'keychain';
  private keyring: Promise<KeyringModule> | undefined;

  constructor(
    private readonly platform: NodeJS.Platform = process.platform,
    private readonly loadModule: () => Promise<KeyringModule> = () => import('@napi-rs/keyring'),
    private readonly headroom: () => number | undefined = descriptorHeadroom,
  ) {}

  async get(ref: SecretRef): Promise<string | undefined> {
    const account = accountOf(ref);
    const item = await this.read('read', ref, account);
    const header = item === undefined ? undefined : parseHeader(item);
    if (!header) return item;
    const parts: string[] = [];
    for (let i = 1; i <= header.count; i++) parts.push((await this.read('read', ref, chunkAccount(account, i))) ?? '');
    const value = parts.join('');
    if (digest(value) !== header.digest) {
      throw new BrokerError(
        'secret-store-unavailable',
        `the keychain holds an incomplete copy of ${ref.profile}/${ref.field} (a store was interrupted)`,
        `store it again: kubecred secret set ${ref.profile} ${ref.field}`,
      );
    }
    return value;
  }

  async set(ref: SecretRef, value: string): Promise<void> {
    const account = accountOf(ref);
    const previous = await this.read('store', ref, account);
    const plan = planChunks(value);
    // Chunks first, header last: a reader never sees a header whose chunks are not there yet.
    if (plan)
      for (const [i, chunk] of plan.chunks.entries())
        await this.write('store', ref, chunkAccount(account, i + 1), chunk);
    await this.write('store', ref, account, plan ? plan.header : value);
    const stale = previous === undefined ? undefined : parseHeader(previous);
    for (let i = (plan?.chunks.length ?? 0) + 1; stale && i <= stale.count; i++)
      await this.remove('delete', ref, chunkAccount(account, i));
    await this.updateIndex(ref.profile, (fields) => fields.add(ref.field));
  }

  async delete(ref: SecretRef): Promise<boolean> {
    const account = accountOf(ref);
    const item = await this.read('delete', ref, account);
    const header = item === undefined ? undefined : parseHeader(item);
    const deleted = await this.remove('delete', ref, account);
    for (let i = 1; header && i <= header.count; i++) await this.remove('delete', ref, chunkAccount(account, i));
    await this.updateIndex(ref.profile, (fields) => fields.delete(ref.field));
    return deleted;
  }

  async list(profile: string): Promise<string[]> {
    return [...(await this.readIndex(profile))].sort();
  }

  private async readIndex(profile: string): Promise<Set<string>> {
    const ref = { profile, field: INDEX_FIELD };
    const text = await this.read('read', ref, accountOf(ref));
    try {
      const fields: unknown = JSON.parse(text ?? '[]');
      return new Set(Array.isArray(fields) ? fields.filter((f): f is string => typeof f === 'string') : []);
    } catch {
      return new Set();
    }
  }

  private async updateIndex(profile: string, change: (fields: Set<string>) => void): Promise<void> {
    const fields = await this.readIndex(profile);
    change(fields);
    const ref = { profile, field: INDEX_FIELD };
    if (fields.size === 0) await this.remove('delete', ref, accountOf(ref));
    else await this.write('store', ref, accountOf(ref), JSON.stringify([...fields].sort()));
  }

  private read(action: string, ref: SecretRef, account: string): Promise<string | undefined> {
    return this.withEntry(action, ref, account, async (entry) => (await entry.getPassword()) ?? undefined);
  }

  private write(action: string, ref: SecretRef, account: string, value: string): Promise<void> {
    return this.withEntry(action, ref, account, (entry) => entry.setPassword(value));
  }

  private remove(action: string, ref: SecretRef, account: string): Promise<boolean> {
    return this.withEntry(action, ref, account, (entry) => entry.deleteCredential());
  }

  /**
   * A fresh entry per operation: an entry made before a Secret Service restart stays broken.
   * On Linux the entry is pinned to the Secret Service, because the library's default falls
   * back to the kernel keyring, where a missing keychain would look like a missing secret.
   */
  private async withEntry<T>(
    action: string,
    ref: SecretRef,
    account: string,
    use: (entry: InstanceType<KeyringModule['AsyncEntry']>) => Promise<T>,
  ): Promise<T> {
    this.checkDescriptors(action, ref);
    const keyring = await this.module();
    if (this.platform === 'linux') adoptSessionBus();
    try {
      const entry = new keyring.AsyncEntry(
        SERVICE,
        account,
        this.platform === 'linux' ? { linux: { store: 'secret-service' } } : undefined,
      );
      return await use(entry);
    } catch (error) {
      throw this.unavailable(action, ref, error);
    }
  }

  /** The binding is not called without descriptors to spare: under EMFILE it took the whole broker down. */
  private checkDescriptors(action: string, ref: SecretRef): void {
    const left = this.headroom();
    if (left === undefined || left >= DESCRIPTORS_NEEDED) return;
    throw new BrokerError(
      'secret-store-unavailable',
      `the broker did not ${action} ${ref.profile}/${ref.field} in the OS keychain: it has ${left} file descriptors left, and the keychain library fails badly without them`,
      'something holds many connections to the broker (its log names refused ones); stop that program, or restart the broker: kubecred restart',
    );
  }

  private async module(): Promise<KeyringModule> {
    this.keyring ??= this.loadModule();
    try {
      return await this.keyring;
    } catch (error) {
      this.keyring = undefined;
      throw new BrokerError(
        'secret-store-unavailable',
        `the OS keychain module could not be loaded (${(error as Error).message})`,
        'reinstall Kubecred; the keychain support ships as a prebuilt @napi-rs/keyring binary for this platform',
      );
    }
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

function accountOf(ref: SecretRef): string {
  return `${ref.profile}/${ref.field}`;
}
