import { readFileSync, readlinkSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { windowsProcessInfo } from './pipeCaller.js';

// /proc is read synchronously: the kernel answers from memory, never from a disk, in a few
// microseconds, where each asynchronous read costs a trip through libuv's thread pool (about
// 0.1 ms on a busy 2-core machine). This sits on every credential answer.

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
  const lineage = processLineage(pid, platform);
  if (!lineage) return undefined;
  const executable = readProc(() => readlinkSync(`/proc/${pid}/exe`));
  const doubt = executable ? await executableDoubt(pid, executable) : undefined;
  return {
    ...lineage,
    ...(executable ? { executable: executable.replace(/ \(deleted\)$/, '') } : {}),
    ...(doubt ? { executableDoubt: doubt } : {}),
  };
}

/**
 * A process's parent and start time only, read at once (Linux): all that naming the caller of
 * a socket needs, without the executable checks of `processFacts`. Undefined where /proc cannot
 * tell (the process is gone, another OS).
 */
export function processLineage(
  pid: number,
  platform: NodeJS.Platform = process.platform,
): Pick<ProcessFacts, 'pid' | 'parentPid' | 'startTime'> | undefined {
  if (platform !== 'linux' || !Number.isInteger(pid) || pid <= 0) return undefined;
  const stat = readProc(() => readFileSync(`/proc/${pid}/stat`, 'utf8'));
  if (stat === undefined) return undefined;
  const fields = fieldsAfterName(stat);
  const parentPid = Number(fields[1]);
  const startTime = fields[19];
  return {
    pid,
    ...(Number.isInteger(parentPid) && parentPid > 0 ? { parentPid } : {}),
    ...(startTime ? { startTime } : {}),
  };
}

const NAMESPACES = [
  ['mnt', 'another mount namespace'],
  ['user', 'another user namespace'],
] as const;

/** The namespaces this process runs in, as /proc names them ("mnt:[4026531841]"), for namespaceDoubt. */
export function ownNamespaces(): ReadonlyMap<string, string | undefined> {
  return new Map(NAMESPACES.map(([kind]) => [kind, readProc(() => readlinkSync(`/proc/self/ns/${kind}`))]));
}

/** "runs in another mount namespace" (where any user can bind-mount a program over a path), else undefined. */
export function namespaceDoubt(pid: number, ours: ReadonlyMap<string, string | undefined>): string | undefined {
  for (const [kind, words] of NAMESPACES) {
    const theirs = readProc(() => readlinkSync(`/proc/${pid}/ns/${kind}`));
    const mine = ours.get(kind);
    if (theirs && mine && theirs !== mine) return `runs in ${words}`;
  }
  return undefined;
}

/**
 * The executable a process runs, read at once (one readlink, Linux): enough to name it once it
 * has exited. Undefined where /proc cannot tell.
 */
export function runningExecutable(pid: number): string | undefined {
  if (process.platform !== 'linux' || !Number.isInteger(pid) || pid <= 0) return undefined;
  return readProc(() => readlinkSync(`/proc/${pid}/exe`))?.replace(/ \(deleted\)$/, '');
}

async function executableDoubt(pid: number, executable: string): Promise<string | undefined> {
  const namespaces = namespaceDoubt(pid, ownNamespaces());
  if (namespaces) return namespaces;
  // /proc/<pid>/exe opens the very file the process runs, wherever it came from. The path it
  // names may sit on any filesystem (a network home), so that one is asked without blocking.
  const running = readProc(() => statSync(`/proc/${pid}/exe`));
  const named = await stat(executable).catch(() => undefined);
  if (running && (!named || running.dev !== named.dev || running.ino !== named.ino))
    return 'runs a file that is not the one at that path now';
  return undefined;
}

/** A read of /proc, or undefined when the process is gone or not ours to read. */
function readProc<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/** /proc/<pid>/stat from the state field on: the name may hold spaces and parentheses, so it ends at the last ')'. */
function fieldsAfterName(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}
