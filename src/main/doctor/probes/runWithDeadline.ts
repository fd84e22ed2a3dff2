import { execFile } from 'node:child_process';

export interface Ran {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  readonly notFound: boolean;
}

/** Runs a program with no stdin and SIGKILLs it at the deadline; never rejects. */
export function runWithDeadline(command: string, args: readonly string[], timeoutMs: number): Promise<Ran> {
  return new Promise((resolve) => {
    const child = execFile(
      command,
      args,
      { timeout: timeoutMs, killSignal: 'SIGKILL', encoding: 'utf8', maxBuffer: 1024 * 1024 },
      (error, stdout, stderr) => {
        const failure = error as (NodeJS.ErrnoException & { killed?: boolean }) | null;
        resolve({
          exitCode: child.exitCode,
          stdout,
          stderr,
          timedOut: failure?.killed === true && child.signalCode === 'SIGKILL',
          notFound: failure?.code === 'ENOENT',
        });
      },
    );
    child.stdin?.end();
  });
}
