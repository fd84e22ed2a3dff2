import { chmod, copyFile, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { EMPTY_CONFIG } from '../../shared/config/schema.js';
import { loadConfig } from './configLoader.js';

export interface ConfigSnapshot {
  readonly config: typeof EMPTY_CONFIG;
  /** Why the file on disk is not in use; the snapshot then holds the last good config. */
  readonly error: string | null;
}

/**
 * Serves the current config, re-reading the file when it changes. A broken edit keeps
 * the last good config in force, so a typo never takes working profiles away; the last good
 * file is also kept on disk (`lastGood`, 0600), so a broker that starts on a broken file
 * (the typo, then a reboot) still serves every cluster while saying what is wrong.
 */
export class ConfigSource {
  private snapshot: ConfigSnapshot = { config: EMPTY_CONFIG, error: null };
  private seenStamp: string | undefined;
  private started = false;

  constructor(
    private readonly file: string,
    private readonly lastGood?: string,
  ) {}

  async current(): Promise<ConfigSnapshot> {
    const stamp = await this.stamp();
    if (stamp === this.seenStamp) return this.snapshot;
    this.seenStamp = stamp;
    const result = await loadConfig(this.file);
    const fallback = !this.started && !result.ok ? await this.loadLastGood() : this.snapshot.config;
    this.started = true;
    this.snapshot = result.ok ? { config: result.config, error: null } : { config: fallback, error: result.error };
    if (result.ok && stamp !== 'absent') await this.keepLastGood();
    return this.snapshot;
  }

  private async loadLastGood(): Promise<ConfigSnapshot['config']> {
    if (!this.lastGood) return this.snapshot.config;
    const saved = await loadConfig(this.lastGood);
    return saved.ok ? saved.config : this.snapshot.config;
  }

  private async keepLastGood(): Promise<void> {
    if (!this.lastGood) return;
    try {
      await mkdir(path.dirname(this.lastGood), { recursive: true, mode: 0o700 });
      await copyFile(this.file, this.lastGood);
      await chmod(this.lastGood, 0o600);
    } catch {
      // Best effort: without the copy, a broker started on a broken file serves no profiles.
    }
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
