import type { KubecredPaths } from '../platform/paths.js';

/** What a command may touch, injected so commands run in tests without a real terminal. */
export interface CliIo {
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: NodeJS.ProcessEnv;
}

export interface CliContext {
  readonly io: CliIo;
  readonly paths: KubecredPaths;
  /** How to run this CLI again (to start the daemon): executable and leading args. */
  readonly self: { readonly command: string; readonly args: readonly string[] };
}

export interface Command {
  readonly name: string;
  readonly usage: string;
  /** More than the usage for `--help`, when a subcommand has more to say (`profile add --help`). */
  help?(args: readonly string[]): Promise<string | undefined>;
  run(args: string[], context: CliContext): Promise<number>;
}

export class UsageError extends Error {}
