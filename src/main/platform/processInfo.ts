import { readFile } from 'node:fs/promises';
import type { CallerPort } from '../broker/credentialBroker.js';

/**
 * Names the program that asked (the shim reports its parent pid), for prompts and the
 * audit log. Only the process name is kept: a command line may carry secrets.
 */
export class ProcessCallerInfo implements CallerPort {
  async describe(pid: number | undefined): Promise<{ pid?: number; name?: string }> {
    if (pid === undefined || pid <= 0) return {};
    if (process.platform !== 'linux') return { pid };
    const name = await readFile(`/proc/${pid}/comm`, 'utf8').then(
      (text) => text.trim(),
      () => undefined,
    );
    return name ? { pid, name } : { pid };
  }
}
