import { copyFileSync, renameSync, rmSync, truncateSync } from 'node:fs';

/**
 * Makes room for a fresh `file`: file.N is dropped, file.1…file.N-1 move up one, and the
 * current file becomes file.1. `copy`: copied, then emptied in place, for a file another
 * process holds open in append mode (the broker's stderr is daemon.log itself, inherited from
 * the command that started it, and Node cannot point it at a new file); a rename would leave
 * the writer in file.1. Synchronous: a log line is written synchronously too, and nothing may
 * be written between the copy and the emptying.
 */
export function rotateLog(file: string, keep: number, how: 'rename' | 'copy'): void {
  rmSync(`${file}.${keep}`, { force: true });
  for (let n = keep - 1; n >= 1; n--) {
    try {
      renameSync(`${file}.${n}`, `${file}.${n + 1}`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  if (keep > 0) {
    if (how === 'copy') copyFileSync(file, `${file}.1`);
    else renameSync(file, `${file}.1`);
  }
  if (how === 'copy' || keep === 0) truncateSync(file, 0);
}
