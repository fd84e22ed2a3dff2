import os from 'node:os';
import { kubecredPaths } from '../platform/paths.js';
import { kubecredVersion } from '../platform/version.js';
import { COMMANDS } from './commandTable.js';
import { UsageError, type CliIo } from './io.js';

function help(): string {
  const lines = COMMANDS.map((c) => `  ${c.name.padEnd(12)}${c.summary}`);
  return `kubecred ${kubecredVersion()}: a credential broker for Kubernetes clients\n\nUsage: kubecred <command> [args]\n\n${lines.join('\n')}\n  version     print the version\n\nHome: $KUBECRED_HOME, else the OS config dir. Docs: README.md\n`;
}

/** Runs one CLI invocation and returns its exit code; never throws. */
export async function runCli(argv: string[], io: CliIo, self: { command: string; args: string[] }): Promise<number> {
  const [name, ...args] = argv[0] === 'help' && argv[1] ? [argv[1], '--help'] : argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    (name ? io.stdout : io.stderr).write(help());
    return name ? 0 : 2;
  }
  if (name === 'version' || name === '--version') {
    io.stdout.write(`${kubecredVersion()}\n`);
    return 0;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    io.stderr.write(`kubecred: unknown command "${name}". Run kubecred --help for the list\n`);
    return 2;
  }
  const command = await entry.load();
  if (args.includes('--help') || args[0] === '-h') {
    const more = await command.help?.(args.filter((arg) => arg !== '--help' && arg !== '-h'));
    io.stdout.write(`kubecred ${name}: ${entry.summary}\nusage: ${command.usage}\n${more ? `\n${more}` : ''}`);
    return 0;
  }
  try {
    const paths = kubecredPaths({
      platform: process.platform,
      env: io.env,
      homedir: os.homedir(),
      tmpdir: os.tmpdir(),
      uid: process.getuid?.() ?? 0,
    });
    return await command.run(args, { io, paths, self });
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`kubecred ${name}: ${error.message}\nusage: ${command.usage}\n`);
      return 2;
    }
    io.stderr.write(errorLines(error as Error));
    return 1;
  }
}

/** The error, and what to do about it when it says (a BrokerError's hint). */
function errorLines(error: Error & { hint?: unknown }): string {
  const hint =
    typeof error.hint === 'string' && error.hint ? `${error.hint.charAt(0).toUpperCase()}${error.hint.slice(1)}` : '';
  if (!hint) return `kubecred: ${error.message}\n`;
  return error.message.includes('\n')
    ? `kubecred: ${error.message}\n${hint}\n`
    : `kubecred: ${error.message}. ${hint}\n`;
}

/**
 * `kubecred status | head -1`: the reader went away, which is not our failure. Quietly stop
 * writing; a stack trace for a closed pipe is noise in every shell pipeline.
 */
function endQuietlyOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
    throw error;
  });
}

export async function main(): Promise<void> {
  endQuietlyOnClosedPipe(process.stdout);
  endQuietlyOnClosedPipe(process.stderr);
  const script = process.argv[1] ?? '';
  process.exitCode = await runCli(
    process.argv.slice(2),
    { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env },
    { command: process.execPath, args: [script] },
  );
}
