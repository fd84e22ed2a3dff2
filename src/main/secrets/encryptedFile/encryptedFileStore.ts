import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { BrokerError } from '../../core/brokerError.js';
import type { SecretPromptPort } from '../../core/uiPorts.js';
import type { SecretRef, SecretStore } from '../../core/secretStore.js';
import { writeFileAtomic } from '../../platform/atomicWrite.js';
import {
  CorruptFileError,
  deriveKey,
  newKdf,
  readKdf,
  seal,
  unseal,
  WrongPassphraseError,
  type KdfParams,
} from './sealedFile.js';
import { UserDeclined } from '../../core/userDeclined.js';

interface Unlocked {
  readonly key: Buffer;
  readonly kdf: KdfParams;
  entries: Record<string, string>;
}

/**
 * For machines with no keychain (headless Linux, WSL, containers), chosen explicitly in
 * config.yaml: one file, encrypted with a key derived from a passphrase that only ever lives
 * in broker memory. Writes are atomic and serialised; a damaged file is reported, never
 * overwritten.
 */
export class EncryptedFileStore implements SecretStore {
  readonly name = 'encrypted file';
  private unlocked: Unlocked | undefined;
  private writes: Promise<unknown> = Promise.resolve();

  constructor(
    readonly file: string,
    private readonly ui: SecretPromptPort,
    private readonly kdfParams?: { N: number; r: number; p: number },
  ) {}

  get isUnlocked(): boolean {
    return this.unlocked !== undefined;
  }

  async exists(): Promise<boolean> {
    return readFile(this.file).then(
      () => true,
      (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? false : Promise.reject(error)),
    );
  }

  /** Opens the file with the passphrase, or creates it when there is none yet. */
  async unlock(passphrase: string): Promise<{ created: boolean }> {
    if (!passphrase) throw new BrokerError('bad-request', 'the passphrase is empty', 'give a passphrase');
    const text = await readFile(this.file, 'utf8').catch((error: NodeJS.ErrnoException) =>
      error.code === 'ENOENT' ? undefined : Promise.reject(error),
    );
    if (text === undefined) {
      const kdf = newKdf(this.kdfParams);
      const unlocked = { key: await deriveKey(passphrase, kdf), kdf, entries: {} };
      await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
      await writeFileAtomic(this.file, seal({}, unlocked.key, kdf));
      this.unlocked = unlocked;
      return { created: true };
    }
    try {
      const kdf = readKdf(text);
      const key = await deriveKey(passphrase, kdf);
      this.unlocked = { key, kdf, entries: unseal(text, key) };
      return { created: false };
    } catch (error) {
      if (error instanceof WrongPassphraseError)
        throw new BrokerError(
          'locked',
          `wrong passphrase for the encrypted secret file ${this.file}`,
          'try again: kubecred unlock',
        );
      if (error instanceof CorruptFileError)
        throw new BrokerError(
          'secret-store-unavailable',
          `the encrypted secret file ${this.file} is damaged (${error.message})`,
          'restore it from a backup; Kubecred leaves it untouched',
        );
      throw error;
    }
  }

  /** Forgets the key and the decrypted secrets. */
  lock(): void {
    this.unlocked?.key.fill(0);
    this.unlocked = undefined;
  }

  async get(ref: SecretRef): Promise<string | undefined> {
    return (await this.open()).entries[accountOf(ref)];
  }

  async set(ref: SecretRef, value: string): Promise<void> {
    await this.change((entries) => {
      entries[accountOf(ref)] = value;
    });
  }

  async delete(ref: SecretRef): Promise<boolean> {
    let existed = false;
    await this.change((entries) => {
      existed = accountOf(ref) in entries;
      delete entries[accountOf(ref)];
    });
    return existed;
  }

  async list(profile: string): Promise<string[]> {
    const prefix = `${profile}/`;
    return Object.keys((await this.open()).entries)
      .filter((k) => k.startsWith(prefix))
      .map((k) => k.slice(prefix.length))
      .sort();
  }

  private async open(): Promise<Unlocked> {
    if (this.unlocked) return this.unlocked;
    const passphrase = await this.ui.askPassphrase({ store: 'encrypted-file', create: !(await this.exists()) });
    if (passphrase === null)
      throw new UserDeclined(
        'locked',
        'the encrypted secret file stays locked: the passphrase prompt was cancelled',
        'run: kubecred unlock',
      );
    await this.unlock(passphrase);
    return this.unlocked!;
  }

  private change(mutate: (entries: Record<string, string>) => void): Promise<void> {
    const run = this.writes.then(async () => {
      const unlocked = await this.open();
      const next = { ...unlocked.entries };
      mutate(next);
      await writeFileAtomic(this.file, seal(next, unlocked.key, unlocked.kdf));
      unlocked.entries = next;
    });
    this.writes = run.catch(() => undefined);
    return run;
  }
}

function accountOf(ref: SecretRef): string {
  return `${ref.profile}/${ref.field}`;
}
