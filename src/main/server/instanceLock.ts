import { link, readFile, rm, writeFile } from 'node:fs/promises';

export class AlreadyRunningError extends Error {
  constructor(readonly pid: number) {
    super(`a Kubecred broker is already running (pid ${pid})`);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One broker per home. The lock file holds the owner's pid and appears with its content in
 * one step (written aside, then hard-linked into place), so a second broker starting at the
 * same moment never reads it empty and mistakes it for a stale one. A lock left by a crashed
 * broker (pid gone) is taken over.
 */
export async function acquireInstanceLock(file: string): Promise<{ release(): Promise<void> }> {
  const staged = `${file}.${process.pid}`;
  await writeFile(staged, `${process.pid}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await link(staged, file);
        return { release: () => releaseIfOurs(file) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const owner = Number.parseInt(await readFile(file, 'utf8').catch(() => ''), 10);
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) throw new AlreadyRunningError(owner);
      await rm(file, { force: true });
    }
    throw new Error(`could not take the broker lock ${file}; remove it if no broker is running`);
  } finally {
    await rm(staged, { force: true });
  }
}

async function releaseIfOurs(file: string): Promise<void> {
  const owner = Number.parseInt(await readFile(file, 'utf8').catch(() => ''), 10);
  if (owner === process.pid) await rm(file, { force: true });
}

/** The pid in the lock file, if any. */
export async function lockOwner(file: string): Promise<number | undefined> {
  const owner = Number.parseInt(await readFile(file, 'utf8').catch(() => ''), 10);
  return Number.isInteger(owner) && owner > 0 ? owner : undefined;
}
