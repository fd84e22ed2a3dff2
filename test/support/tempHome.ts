import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempHome {
  dir: string;
  cleanup(): Promise<void>;
}

// A short prefix directly under the OS temp dir: the broker's socket lives at
// <home>/run/broker.sock and Unix socket paths must stay under ~100 bytes
// (104 on macOS), so a deep vitest-style temp path would push it over.
export async function makeTempHome(): Promise<TempHome> {
  const dir = await mkdtemp(join(tmpdir(), 'kc-'));
  return {
    dir,
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
