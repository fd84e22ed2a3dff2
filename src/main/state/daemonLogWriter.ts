import { fstatSync, statSync, writeSync } from 'node:fs';
import type { LogLimits } from '../../shared/config/schema.js';
import { rotateLog } from './logRotation.js';

/**
 * Where the broker's log lines go. Started in the background (by the shim, the CLI, `kubecred
 * restart`), its stderr is daemon.log opened for appending: that file is then rotated at
 * `maxBytes`, in place, so a flood of diagnostics cannot fill the disk. Any other stderr (a
 * terminal, a service manager's pipe) is written as it is: its owner bounds it.
 */
export function daemonLogWriter(fd: number, daemonLog: string, limits: LogLimits): (line: string) => void {
  let size = isFile(fd, daemonLog) ? fstatSync(fd).size : undefined;
  return (line) => {
    const bytes = Buffer.from(line);
    if (size !== undefined && size > 0 && size + bytes.length > limits.maxBytes) {
      try {
        rotateLog(daemonLog, limits.keep, 'copy');
        size = 0;
      } catch {
        // A failed rotation (a full disk) must not stop the broker; the line is still tried.
      }
    }
    try {
      writeSync(fd, bytes);
      if (size !== undefined) size += bytes.length;
    } catch {
      // As with process.stderr on a full disk: the broker keeps serving.
    }
  };
}

/** Whether the descriptor is that very file (not a terminal, nor a copy elsewhere). */
function isFile(fd: number, file: string): boolean {
  try {
    const [open, named] = [fstatSync(fd), statSync(file)];
    return open.isFile() && open.dev === named.dev && open.ino === named.ino;
  } catch {
    return false;
  }
}
