import { link, readFile, rm, stat, writeFile } from 'node:fs/promises';

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

const ATTEMPTS = 50;
// A breaker that died mid-break leaves its guard behind; one older than this is abandoned.
const ABANDONED_GUARD_MS = 10_000;

/**
 * One broker per home. The lock file holds the owner's pid and appears with its content in
 * one step (written aside, then hard-linked into place), so a second broker starting at the
 * same moment never reads it empty and mistakes it for a stale one. A lock left by a crashed
 * broker (pid gone) is taken over, by one starter at a time: many callers restart a killed
 * broker at once, and two of them removing the stale lock in turn would remove each other's
 * fresh one and both run.
 */
export async function acquireInstanceLock(file: string): Promise<{ release(): Promise<void> }> {
  const staged = `${file}.${process.pid}`;
  await writeFile(staged, `${process.pid}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      try {
        await link(staged, file);
        return { release: () => releaseIfOurs(file) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const content = await readFile(file, 'utf8').catch(() => undefined);
      if (content === undefined) continue;
      const owner = Number.parseInt(content, 10);
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner))
        throw new AlreadyRunningError(owner);
      await breakStaleLock(file, content, staged);
    }
    throw new Error(`could not take the broker lock ${file}; remove it if no broker is running`);
  } finally {
    await rm(staged, { force: true });
  }
}

/** Removes the lock only if it still holds the stale content, under a guard only one process can hold. */
async function breakStaleLock(file: string, staleContent: string, staged: string): Promise<void> {
  const guard = `${file}.break`;
  try {
    await link(staged, guard);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const age = await stat(guard).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > ABANDONED_GUARD_MS) await rm(guard, { force: true });
    await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 30));
    return;
  }
  try {
    if ((await readFile(file, 'utf8').catch(() => undefined)) === staleContent) await rm(file, { force: true });
  } finally {
    await rm(guard, { force: true });
  }
}

async function releaseIfOurs(file: string): Promise<void> {
  const owner = Number.parseInt(await readFile(file, 'utf8').catch(() => ''), 10);
  if (owner === process.pid) await rm(file, { force: true });
}

/** The pid in the lock file when that process is alive: a broker running or starting. */
export async function liveLockOwner(file: string): Promise<number | undefined> {
  const owner = await lockOwner(file);
  return owner !== undefined && isAlive(owner) ? owner : undefined;
}

/** The pid in the lock file, if any. */
export async function lockOwner(file: string): Promise<number | undefined> {
  const owner = Number.parseInt(await readFile(file, 'utf8').catch(() => ''), 10);
  return Number.isInteger(owner) && owner > 0 ? owner : undefined;
}
