import os from 'node:os';
import { execa } from 'execa';
import { sessionEnvironment } from './sessionEnvironment.js';

export interface BoundedCommand {
  readonly command: string;
  readonly args: readonly string[];
  /** Added to the user's session variables (never the rest of the broker's environment). */
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly signal?: AbortSignal | undefined;
  /** Each line the program writes to stderr, as it comes (its stderr is still returned whole). */
  readonly onStderrLine?: (line: string) => void;
}

export interface BoundedResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number | undefined;
  readonly signal: string | undefined;
  readonly timedOut: boolean;
  readonly notFound: boolean;
  /** It printed more than maxOutputBytes and was stopped. */
  readonly tooLarge: boolean;
}

/**
 * Runs a helper program the broker wraps (an exec plugin, a password command) with no stdin
 * and a deadline. At the deadline its whole process group is killed: a shell script's
 * `sleep` would otherwise hold the output pipe open long after the script itself was killed.
 */
export async function runBoundedCommand({
  command,
  args,
  env,
  timeoutMs,
  maxOutputBytes,
  signal,
  onStderrLine,
}: BoundedCommand): Promise<BoundedResult> {
  const subprocess = execa(command, args, {
    // Every run alike: the session's variables and the profile's own, from the user's home
    // directory, whichever shell happened to start the broker.
    env: { ...sessionEnvironment(process.env), ...env },
    extendEnv: false,
    cwd: os.homedir(),
    stdin: 'ignore',
    maxBuffer: maxOutputBytes,
    reject: false,
    encoding: 'utf8',
    detached: process.platform !== 'win32',
    ...(signal ? { cancelSignal: signal } : {}),
  });
  if (onStderrLine) followLines(subprocess.stderr, onStderrLine);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killProcessGroup(subprocess);
  }, timeoutMs);
  const result = await subprocess.finally(() => clearTimeout(timer));
  return {
    stdout: String(result.stdout ?? ''),
    stderr: String(result.stderr ?? ''),
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut,
    notFound: result.failed && (result as { code?: string }).code === 'ENOENT',
    tooLarge: (result as { isMaxBuffer?: boolean }).isMaxBuffer === true,
  };
}

function killProcessGroup(subprocess: { pid?: number | undefined; kill(signal?: NodeJS.Signals): boolean }): void {
  try {
    if (subprocess.pid !== undefined && process.platform !== 'win32') process.kill(-subprocess.pid, 'SIGKILL');
    else subprocess.kill('SIGKILL');
  } catch {
    subprocess.kill('SIGKILL');
  }
}

/** Calls `onLine` for each complete line of a stream, while it runs. */
function followLines(stream: NodeJS.ReadableStream | null, onLine: (line: string) => void): void {
  let pending = '';
  stream?.on('data', (chunk: Buffer | string) => {
    pending += chunk.toString();
    let end: number;
    while ((end = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, end).trim();
      pending = pending.slice(end + 1);
      if (line) onLine(line);
    }
    if (pending.length > 4096) pending = pending.slice(-4096);
  });
}
