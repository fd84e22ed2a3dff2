import { spawn } from 'node:child_process';

/** A program as a person runs it: what it shows (stdout and stderr as they come), and a keyboard. */
export interface TerminalSession {
  /** Everything the terminal has shown so far (ANSI left in; the tests match plain words). */
  screen(): string;
  /**
   * Waits until the screen matches, and says how long after the start that was. Fails, naming
   * what the screen showed, when nothing matched in time: a wait in silence is a failure.
   */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<{ match: RegExpExecArray; afterMs: number }>;
  /** Types a line, as a person would, Enter included. */
  typeLine(text: string): void;
  /** The exit code, and the time from the start to the exit. */
  readonly exited: Promise<{ code: number | null; afterMs: number }>;
  /** Sends a signal (SIGINT is Ctrl-C); SIGKILL by default. */
  kill(signal?: NodeJS.Signals): void;
  /** What was shown and typed, each piece with when (performance.now()) it came: a journey's transcript. */
  events(): readonly TerminalEvent[];
}

export interface TerminalEvent {
  readonly at: number;
  readonly kind: 'shown' | 'typed';
  readonly text: string;
}

/** Runs `argv` under script(1), so its stdin, stdout and stderr are a real terminal. */
export function inTerminal(argv: readonly string[], env: Record<string, string>): TerminalSession {
  return watch('script', ['-qefc', argv.map(shellWord).join(' '), '/dev/null'], { ...env, TERM: 'dumb' });
}

/**
 * Runs `argv` with no terminal at all (an IDE, a script, CI): stdin closed, its output read as
 * it comes, so a test sees when each line arrived, not only what was there at the exit.
 */
export function withoutTerminal(argv: readonly string[], env: Record<string, string>): TerminalSession {
  const [command, ...args] = argv;
  return watch(command!, args, env, true);
}

function watch(command: string, args: string[], env: Record<string, string>, closeStdin = false): TerminalSession {
  const started = performance.now();
  const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  if (closeStdin) child.stdin.end();
  let screen = '';
  const events: TerminalEvent[] = [];
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer) => {
    screen += chunk.toString();
    events.push({ at: performance.now(), kind: 'shown', text: chunk.toString() });
    for (const listener of listeners) listener();
  };
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  const exited = new Promise<{ code: number | null; afterMs: number }>((resolve) =>
    child.once('close', (code) => resolve({ code, afterMs: Math.round(performance.now() - started) })),
  );
  return {
    screen: () => screen,
    waitFor: (pattern, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(screen);
          if (!match) return false;
          finish();
          resolve({ match, afterMs: Math.round(performance.now() - started) });
          return true;
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`the terminal did not show ${pattern} within ${timeoutMs} ms; it showed:\n${screen}`));
        }, timeoutMs);
        const finish = () => {
          clearTimeout(timer);
          listeners.delete(onData);
        };
        const onData = () => void check();
        if (!check()) listeners.add(onData);
      }),
    typeLine: (text) => {
      // What a person types here is a PIN or a password: the transcript keeps its length only.
      events.push({ at: performance.now(), kind: 'typed', text: `${text.length} characters, Enter` });
      child.stdin.write(`${text}\r`);
    },
    exited,
    kill: (signal = 'SIGKILL') => void child.kill(signal),
    events: () => events,
  };
}

function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
