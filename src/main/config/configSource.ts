import { stat } from 'node:fs/promises';
import { EMPTY_CONFIG } from '../../shared/config/schema.js';
import { loadConfig } from './configLoader.js';

export interface ConfigSnapshot {
  readonly config: typeof EMPTY_CONFIG;
  /** Why the file on disk is not in use; the snapshot then holds the last good config. */
  readonly error: string | null;
}

/**
 * Serves the current config, re-reading the file when it changes. A broken edit keeps
 * the last good config in force, so a typo never takes working profiles away.
 */
export class ConfigSource {
  private snapshot: ConfigSnapshot = { config: EMPTY_CONFIG, error: null };
  private seenStamp: string | undefined;

  constructor(private readonly file: string) {}

  async current(): Promise<ConfigSnapshot> {
    const stamp = await this.stamp();
    if (stamp === this.seenStamp) return this.snapshot;
    this.seenStamp = stamp;
    const result = await loadConfig(this.file);
    this.snapshot = result.ok
      ? { config: result.config, error: null }
      : { config: this.snapshot.config, error: result.error };
    return this.snapshot;
  }

  private async stamp(): Promise<string> {
    try {
      const info = await stat(this.file);
      return `${info.mtimeMs}:${info.size}:${info.ino}`;
    } catch {
      return 'absent';
    }
  }
}
