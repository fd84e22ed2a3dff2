import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';

/** A file laid over another path, for one process tree only. */
export interface Bind {
  readonly source: string;
  readonly over: string;
}

/** Whether this machine can give a process its own mounts: Linux, root, and unshare. */
export function canUsePrivateMounts(): boolean {
  return process.platform === 'linux' && process.getuid?.() === 0 && spawnSync('unshare', ['-m', 'true']).status === 0;
}

/**
 * `command args` run in a mount namespace of its own where each `source` is bind-mounted over its
 * `over` path: it and every process it starts (a broker the CLI launches, say) see those files,
 * and the rest of the machine does not. The paths travel as arguments, never inside the script.
 */
export function inPrivateMounts(
  binds: readonly Bind[],
  command: string,
  args: readonly string[],
): { command: string; args: string[] } {
  const script = `${binds.map(() => 'mount --bind "$1" "$2" && shift 2 && ').join('')}exec "$@"`;
  return {
    command: 'unshare',
    args: ['-m', 'sh', '-c', script, 'sh', ...binds.flatMap((bind) => [bind.source, bind.over]), command, ...args],
  };
}

/**
 * A hosts file naming `hosts` (name → address): bind-mounted over /etc/hosts for a proxy alone,
 * the names resolve for that proxy and nowhere else, so a client reaches those hosts through the
 * proxy or not at all and a test can never pass by going around it.
 */
export async function writeHostsFile(file: string, hosts: Readonly<Record<string, string>>): Promise<Bind> {
  await writeFile(
    file,
    ['127.0.0.1 localhost', ...Object.entries(hosts).map(([name, ip]) => `${ip} ${name}`), ''].join('\n'),
  );
  return { source: file, over: '/etc/hosts' };
}

/** Resolves once something listens on 127.0.0.1:`port`; throws what `failed` says (the daemon died) or after 30 s. */
export async function waitForPort(
  port: number,
  what: string,
  failed: () => string | undefined,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const why = failed();
    if (why) throw new Error(why);
    const taken = await new Promise<boolean>((resolve) => {
      const probe = createServer().listen(port, '127.0.0.1');
      probe.once('listening', () => probe.close(() => resolve(false)));
      probe.once('error', () => resolve(true));
    });
    if (taken) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not listen on ${port} within ${timeoutMs / 1000} s`);
}
