import { readFile, readlink } from 'node:fs/promises';

/** One process as the kernel describes it; fields the platform cannot tell are missing. */
export interface ProcessFacts {
  readonly pid: number;
  readonly parentPid?: number;
  /** Clock ticks since boot when it started: with the pid, names one process for good (pids are reused). */
  readonly startTime?: string;
  /** The executable's path: set by the kernel at exec, unlike the name a process gives itself. */
  readonly executable?: string;
}

/** Reads /proc on Linux; elsewhere only the pid is known. */
export async function processFacts(
  pid: number,
  platform: NodeJS.Platform = process.platform,
): Promise<ProcessFacts | undefined> {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  if (platform !== 'linux') return { pid };
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat === undefined) return undefined;
  // The name field may hold spaces and parentheses: the fields after it start at the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const parentPid = Number(fields[1]);
  const startTime = fields[19];
  const executable = await readlink(`/proc/${pid}/exe`).catch(() => undefined);
  return {
    pid,
    ...(Number.isInteger(parentPid) && parentPid > 0 ? { parentPid } : {}),
    ...(startTime ? { startTime } : {}),
    ...(executable ? { executable: executable.replace(/ \(deleted\)$/, '') } : {}),
  };
}
