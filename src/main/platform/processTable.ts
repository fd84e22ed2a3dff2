import { readFileSync } from 'node:fs';
import { readFile, readlink, stat } from 'node:fs/promises';
import { windowsProcessInfo } from './pipeCaller.js';

/** One process as the kernel describes it; fields the platform cannot tell are missing. */
export interface ProcessFacts {
  readonly pid: number;
  readonly parentPid?: number;
  /** Clock ticks since boot when it started: with the pid, names one process for good (pids are reused). */
  readonly startTime?: string;
  /** The executable's path: set by the kernel at exec, unlike the name a process gives itself. */
  readonly executable?: string;
  /**
   * Why `executable` may not be the file that path names here: the process sees another mount
   * or user namespace (where any user can bind-mount a program over /usr/bin/kubectl), or the
   * file it runs is not the one at that path now.
   */
  readonly executableDoubt?: string;
}

/** Reads /proc on Linux, asks Windows through the pipe-caller addon; elsewhere only the pid is known. */
export async function processFacts(
  pid: number,
  platform: NodeJS.Platform = process.platform,
): Promise<ProcessFacts | undefined> {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  if (platform === 'win32' && process.platform === 'win32') {
    const facts = windowsProcessInfo(pid);
    return facts === null ? undefined : { pid, ...facts };
  }
  if (platform !== 'linux') return { pid };
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat === undefined) return undefined;
  const fields = fieldsAfterName(stat);
  const parentPid = Number(fields[1]);
  const startTime = fields[19];
  const executable = await readlink(`/proc/${pid}/exe`).catch(() => undefined);
  const doubt = executable ? await executableDoubt(pid, executable) : undefined;
  return {
    pid,
    ...(Number.isInteger(parentPid) && parentPid > 0 ? { parentPid } : {}),
    ...(startTime ? { startTime } : {}),
    ...(executable ? { executable: executable.replace(/ \(deleted\)$/, '') } : {}),
    ...(doubt ? { executableDoubt: doubt } : {}),
  };
}

async function executableDoubt(pid: number, executable: string): Promise<string | undefined> {
  for (const [kind, words] of [
    ['mnt', 'another mount namespace'],
    ['user', 'another user namespace'],
  ] as const) {
    const [theirs, ours] = await Promise.all([
      readlink(`/proc/${pid}/ns/${kind}`).catch(() => undefined),
      readlink(`/proc/self/ns/${kind}`).catch(() => undefined),
    ]);
    if (theirs && ours && theirs !== ours) return `runs in ${words}`;
  }
  // /proc/<pid>/exe opens the very file the process runs, wherever it came from.
  const [running, named] = await Promise.all([
    stat(`/proc/${pid}/exe`).catch(() => undefined),
    stat(executable).catch(() => undefined),
  ]);
  if (running && (!named || running.dev !== named.dev || running.ino !== named.ino))
    return 'runs a file that is not the one at that path now';
  return undefined;
}

/**
 * When the process started (clock ticks since boot), read at once: for the accept handler,
 * which must note it before any await lets the client go. Undefined where /proc cannot tell.
 */
export function startTimeNow(pid: number): string | undefined {
  try {
    return fieldsAfterName(readFileSync(`/proc/${pid}/stat`, 'utf8'))[19];
  } catch {
    return undefined;
  }
}

/** /proc/<pid>/stat from the state field on: the name may hold spaces and parentheses, so it ends at the last ')'. */
function fieldsAfterName(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}
