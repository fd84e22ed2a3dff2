import { statSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { EMPTY_CONFIG, type KubecredConfig } from '../../shared/config/schema.js';
import { writeFileAtomic } from '../platform/atomicWrite.js';
import { loadConfig, parseConfig, type ConfigResult } from './configLoader.js';

/** The last config.yaml that was valid, kept in the state dir by a running broker. */
export const LAST_GOOD_CONFIG = 'config.last-good.yaml';

/**
 * What a broker started now would serve: config.yaml, or while it is broken, the last good
 * copy (`config` is undefined when there is none). For commands that check a profile name.
 */
export async function loadServedConfig(
  configFile: string,
  stateDir: string,
): Promise<{ config: KubecredConfig | undefined; error: string | null }> {
  const current = await loadConfig(configFile);
  if (current.ok) return { config: current.config, error: null };
  const saved = await loadConfig(path.join(stateDir, LAST_GOOD_CONFIG));
  return { config: saved.ok ? saved.config : undefined, error: current.error };
}

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
  private reading: Promise<ConfigSnapshot> | undefined;
  private nextReading: Promise<ConfigSnapshot> | undefined;
  private readonly followers: Array<(config: ConfigSnapshot['config']) => void> = [];

  constructor(
    private readonly file: string,
    private readonly lastGood?: string,
  ) {}

  /** Told each config in force, before any caller of `current` sees it: what decides synchronously follows it. */
  follow(follower: (config: ConfigSnapshot['config']) => void): void {
    this.followers.push(follower);
    follower(this.snapshot.config);
  }

  /**
   * One read at a time: two overlapping reads could finish out of order and leave an older
   * text in force under the newer file's stamp until the next edit (an import adding two
   * profiles saw the second one missing). Callers arriving during a read share the one after it,
   * which looks at the file afresh.
   */
  current(): Promise<ConfigSnapshot> {
    if (!this.reading) {
      this.reading = this.reread().finally(() => (this.reading = undefined));
      return this.reading;
    }
    this.nextReading ??= this.reading
      .catch(() => undefined)
      .then(() => {
        this.nextReading = undefined;
        return this.current();
      });
    return this.nextReading;
  }

  private async reread(): Promise<ConfigSnapshot> {
    const stamp = await this.stamp();
    if (stamp === this.seenStamp) return this.snapshot;
    this.seenStamp = stamp;
    const text = await this.readText();
    const result: ConfigResult = typeof text === 'string' ? parseConfig(text, this.file) : text;
    const fallback = !this.started && !result.ok ? await this.loadLastGood() : this.snapshot.config;
    this.started = true;
    this.snapshot = result.ok ? { config: result.config, error: null } : { config: fallback, error: result.error };
    for (const follower of this.followers) follower(this.snapshot.config);
    // The very text that was checked: a copy taken later could catch an edit half-way.
    if (result.ok && typeof text === 'string') await this.keepLastGood(text);
    return this.snapshot;
  }

  private async loadLastGood(): Promise<ConfigSnapshot['config']> {
    if (!this.lastGood) return this.snapshot.config;
    const saved = await loadConfig(this.lastGood);
    return saved.ok ? saved.config : this.snapshot.config;
  }

  /** config.yaml's text; a missing file is a valid empty config, an unreadable one an error. */
  private async readText(): Promise<string | ConfigResult> {
    try {
      return await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, config: EMPTY_CONFIG };
      return { ok: false, error: `cannot read ${this.file}: ${(error as Error).message}` };
    }
  }

  private async keepLastGood(text: string): Promise<void> {
    if (!this.lastGood) return;
    try {
      await mkdir(path.dirname(this.lastGood), { recursive: true, mode: 0o700 });
      // Created 0600 (never the source's mode, not even for a moment), and renamed into place:
      // whatever sat at that path, a symlink included, is replaced, never written through.
      await writeFileAtomic(this.lastGood, text, 0o600);
    } catch {
      // Best effort: without the copy, a broker started on a broken file serves no profiles.
    }
  }

  /**
   * Asked on every request, so at once: a stat of a file the broker's own home holds takes
   * microseconds, where a trip through the thread pool costs a tenth of a millisecond.
   */
  private async stamp(): Promise<string> {
    try {
      const info = statSync(this.file);
      return `${info.mtimeMs}:${info.size}:${info.ino}`;
    } catch {
      return 'absent';
    }
  }
}
