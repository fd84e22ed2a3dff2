import { spawn, type ChildProcess } from 'node:child_process';

export interface RunningKubectl {
  /** Resolves with the output so far once it matches; rejects with it after timeoutMs. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<string>;
  /** Resolves when kubectl exits; rejects after timeoutMs. */
  exited(timeoutMs: number): Promise<void>;
  output(): string;
  stop(): void;
}

/** kubectl left running; with stdin 'pipe' its input stays open (an interactive exec). */
export function startKubectl(
  bin: string,
  args: string[],
  world: { readonly kubeconfig: string; readonly env: Readonly<Record<string, string>> },
  env: Record<string, string> = {},
  stdin: 'ignore' | 'pipe' = 'ignore',
): RunningKubectl {
  const child: ChildProcess = spawn(bin, args, {
    env: { ...process.env, ...world.env, ...env, KUBECONFIG: world.kubeconfig },
    stdio: [stdin, 'pipe', 'pipe'],
  });
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return {
    output: () => output,
    stop: () => void child.kill(),
    exited: (timeoutMs) =>
      Promise.race([
        exit,
        new Promise<void>((_resolve, reject) => setTimeout(() => reject(new Error('still running')), timeoutMs)),
      ]),
    async waitFor(pattern, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(output)) {
        if (child.exitCode !== null)
          throw new Error(`kubectl ${args.join(' ')} exited (${child.exitCode}) before ${pattern}: ${output}`);
        if (Date.now() > deadline)
          throw new Error(`kubectl ${args.join(' ')}: no ${pattern} within ${timeoutMs} ms: ${output}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return output;
    },
  };
}
