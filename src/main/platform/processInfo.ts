import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CallerPort, PinnedCaller } from '../core/ports.js';
import { namespaceDoubt, ownNamespaces, processFacts, runningExecutable } from './processTable.js';

/** A calling program as prompts and the audit trail show it. */
export interface CallerDescription {
  pid?: number;
  /** The executable's file name (what the kernel ran), else the name the process gave itself. */
  name?: string;
  /** The executable's full path: `kubectl` in a stranger's directory is not your kubectl. */
  path?: string;
}

/**
 * Names the program that asked, for prompts and the audit log. The name comes from the
 * executable the kernel ran, not from `comm`, which any process can set for itself (prctl).
 * Only the executable is kept: a command line may carry secrets.
 */
export class ProcessCallerInfo implements CallerPort {
  /** Read once: this process's namespaces do not change, and pinning sits on every answer. */
  private ours: ReadonlyMap<string, string | undefined> | undefined;

  pin(pid: number | undefined): PinnedCaller | undefined {
    if (pid === undefined) return undefined;
    const executable = runningExecutable(pid);
    if (!executable) return undefined;
    const doubt = namespaceDoubt(pid, (this.ours ??= ownNamespaces()));
    return { executable, ...(doubt ? { doubt } : {}) };
  }

  async describe(pid: number | undefined, pinned?: PinnedCaller): Promise<CallerDescription> {
    if (pid === undefined || pid <= 0) return {};
    const facts = await processFacts(pid);
    if (facts?.executable) return namedBy(pid, facts.executable, facts.executableDoubt);
    // Gone since its request arrived (a kubectl that got its answer): named by what was read then.
    if (pinned) return namedBy(pid, pinned.executable, pinned.doubt);
    if (process.platform !== 'linux') return { pid };
    // No executable to read: a process gone before it could be pinned, or another user's. Its own name is a hint
    // only, since any process may set it, and says so in words a person reads.
    const name = await readFile(`/proc/${pid}/comm`, 'utf8').then(
      (text) => text.trim(),
      () => undefined,
    );
    return name ? { pid, name: `${name} (as it named itself)` } : { pid };
  }

  /** When the process started, so a grant to it ends with it (pids are reused). */
  async startTime(pid: number): Promise<string | undefined> {
    return (await processFacts(pid))?.startTime;
  }
}

/** A caller named by its executable; a name and path that may be borrowed say so where the user decides. */
function namedBy(pid: number, executable: string, doubt: string | undefined): CallerDescription {
  const name = path.basename(executable);
  return doubt
    ? { pid, name: `${name} (${doubt})`, path: `${executable} (${doubt})` }
    : { pid, name, path: executable };
}
