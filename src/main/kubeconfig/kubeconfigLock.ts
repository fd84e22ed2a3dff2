import { mkdir, open, rm } from 'node:fs/promises';
import path from 'node:path';

/** Another editor held a kubeconfig's lock for longer than we wait. */
export class KubeconfigLockedError extends Error {}

/**
 * Runs `work` while holding kubectl's own lock on each file: `<file>.lock` created with O_EXCL,
 * as client-go's clientcmd does, so `kubectl config ...` and Kubecred never write over each
 * other. Locks are taken in sorted order like client-go's, so two editors cannot deadlock.
 * kubectl gives up at once on a held lock; we retry until `timeoutMs`, then name the lock file,
 * which a crashed editor may have left behind. Read the files again inside `work`.
 */
export async function withKubeconfigLock<T>(
  files: readonly string[],
  work: () => Promise<T>,
  { timeoutMs = 10_000, pollMs = 25 } = {},
): Promise<T> {
  const held: string[] = [];
  try {
    for (const file of [...new Set(files)].sort()) {
      await acquire(`${file}.lock`, file, Date.now() + timeoutMs, pollMs);
      held.push(`${file}.lock`);
    }
    return await work();
  } finally {
    for (const lock of held.reverse()) await rm(lock, { force: true });
  }
}

async function acquire(lock: string, file: string, deadline: number, pollMs: number): Promise<void> {
  await mkdir(path.dirname(lock), { recursive: true, mode: 0o700 });
  for (;;) {
    try {
      await (await open(lock, 'wx', 0o600)).close();
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (Date.now() >= deadline) {
      throw new KubeconfigLockedError(
        `${file} is being edited by another program (${lock} exists). If no kubectl config or kubecred command is running, a crash left it behind: delete ${lock} and run again`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
