import { open, readFile, rm } from 'node:fs/promises';

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
 * One broker per home. The lock file holds the owner's pid; a lock left by a crashed
 * broker (pid gone) is taken over.
 */
export async function acquireInstanceLock(file: string): Promise<{ release(): Promise<void> }> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(file, 'wx', 0o600);
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return { release: () => rm(file, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number.parseInt(await readFile(file, 'utf8').catch(() => ''), 10);
    if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) throw new AlreadyRunningError(owner);
    await rm(file, { force: true });
  }
  throw new Error(`could not take the broker lock ${file}; remove it if no broker is running`);
}
