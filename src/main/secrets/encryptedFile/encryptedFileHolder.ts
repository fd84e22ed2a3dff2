import path from 'node:path';
import type { KubecredConfig } from '../../../shared/config/schema.js';
import type { SecretPromptPort } from '../../core/uiPorts.js';
import { EncryptedFileStore } from './encryptedFileStore.js';

/**
 * Keeps one encrypted file store for the path config.yaml names, and locks the old one when
 * the path changes: its key must not outlive the file it opened.
 */
export class EncryptedFileHolder {
  private held: EncryptedFileStore | undefined;

  constructor(
    private readonly home: string,
    private readonly ui: SecretPromptPort,
  ) {}

  current(config: KubecredConfig): EncryptedFileStore {
    const file = path.resolve(this.home, config.encryptedFile?.path ?? path.join('state', 'secrets.enc'));
    if (this.held?.file !== file) {
      this.held?.lock();
      this.held = new EncryptedFileStore(file, this.ui);
    }
    return this.held;
  }

  lock(): void {
    this.held?.lock();
  }
}
