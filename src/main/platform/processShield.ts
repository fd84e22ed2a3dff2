import { readFileSync, statSync } from 'node:fs';

/**
 * Whether the other programs of this user are kept out of process `pid` now: undefined when
 * they are, else why not. On Linux that is a process that made itself non-dumpable (its
 * /proc entries then belong to root, not to the user: no ptrace, `pidfd_getfd` or
 * `/proc/<pid>/mem` for them) and that no debugger holds (a tracer attached before the switch
 * keeps its hold). macOS has no such switch and no `pidfd_getfd`; another process's task port
 * needs root or a debugger's entitlement there, so nothing is checked.
 */
export function unshieldedBecause(
  pid: number,
  platform: NodeJS.Platform = process.platform,
  uid: number | undefined = process.getuid?.(),
): string | undefined {
  if (platform !== 'linux') return undefined;
  let status: string;
  let owner: number;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
    owner = statSync(`/proc/${pid}/environ`).uid;
  } catch {
    return `process ${pid} is gone`;
  }
  const tracer = Number(/^TracerPid:\s*(\d+)/m.exec(status)?.[1] ?? Number.NaN);
  if (tracer !== 0) return Number.isNaN(tracer) ? `/proc/${pid}/status names no tracer` : `process ${tracer} traces it`;
  // As root, a dumpable process's entries are root's too; and a program of root needs no window.
  if (uid !== undefined && uid !== 0 && owner === uid) return 'it is still dumpable';
  return undefined;
}
