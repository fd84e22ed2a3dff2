import { spawn, type ChildProcess } from 'node:child_process';
import { access, readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { DAEMON_NODE_FLAGS } from '../../src/main/platform/daemonNodeFlags.js';
import { inPrivateMounts, type Bind } from './privateMounts.js';
import { KUBECRED_CLI } from './repo.js';

export interface TestBroker {
  readonly home: string;
  readonly socket: string;
  readonly process: ChildProcess;
  readonly output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function brokerEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { ...(process.env as Record<string, string>), KUBECRED_HOME: home, ...extra };
}

export async function writeConfig(home: string, yaml: string): Promise<void> {
  await writeFile(path.join(home, 'config.yaml'), yaml);
}

/** Runs `kubecred daemon` for real in the given home, as the CLI and the shim start it, and waits until it answers. */
export async function startTestBroker(
  home: string,
  env: Record<string, string> = {},
  args: string[] = [],
): Promise<TestBroker> {
  return runDaemon(home, { command: process.execPath, args: daemonArgs(args) }, env);
}

/**
 * startTestBroker in private mounts (test/support/privateMounts.ts): each bind laid over its
 * path for the broker and every program it starts (a wrapped plugin too), and for nothing else
 * on the machine; an OS bundle with a TLS-inspecting proxy's root, say. `env` goes over this
 * process's environment, as startTestBroker's does; a variable given as undefined is unset.
 */
export async function startTestBrokerInMounts(
  home: string,
  binds: readonly Bind[],
  env: Record<string, string | undefined> = {},
): Promise<TestBroker> {
  return runDaemon(home, inPrivateMounts(binds, process.execPath, daemonArgs([])), env);
}

/** What a broker a CLI call started logged (state/daemon.log); empty when none did. */
export async function readDaemonLog(home: string): Promise<string> {
  return readFile(path.join(home, 'state', 'daemon.log'), 'utf8').catch(() => '');
}

function daemonArgs(args: readonly string[]): string[] {
  return [...DAEMON_NODE_FLAGS, KUBECRED_CLI, 'daemon', ...args];
}

/** Both ways of starting a broker share this: `launch` is the daemon itself, or a wrapper that execs it. */
async function runDaemon(
  home: string,
  launch: { command: string; args: string[] },
  env: Record<string, string | undefined>,
): Promise<TestBroker> {
  const socket = path.join(home, 'run', 'broker.sock');
  const child = spawn(launch.command, launch.args, {
    env: Object.fromEntries(
      Object.entries({ ...brokerEnv(home), ...env }).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    ),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await waitForSocket(
    socket,
    home,
    () => child.exitCode !== null,
    () => output,
  );
  return {
    home,
    socket,
    process: child,
    output: () => output,
    // A wrapper (unshare, then sh) execs the broker in its place: the signal reaches the broker.
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

export async function waitForSocket(
  socket: string,
  home: string,
  gaveUp: () => boolean = () => false,
  output: () => string = () => '',
): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (gaveUp()) throw new Error(`the broker exited: ${output()}`);
    const secret = await access(path.join(home, 'run', 'client-secret')).then(
      () => true,
      () => false,
    );
    if (secret && (await connects(socket))) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the broker did not start: ${output()}`);
}

function connects(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const connection = net.connect(socket);
    connection.once('connect', () => {
      connection.destroy();
      resolve(true);
    });
    connection.once('error', () => resolve(false));
  });
}

/** Pids of `kubecred daemon` processes serving the given home (Linux /proc), to catch leaks. */
export async function daemonsOf(home: string): Promise<number[]> {
  const { readdir, readFile } = await import('node:fs/promises');
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const [cmdline, environ] = await Promise.all([
      readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => ''),
      readFile(`/proc/${entry}/environ`, 'utf8').catch(() => ''),
    ]);
    if (
      cmdline.includes('kubecred') &&
      cmdline.split('\0').includes('daemon') &&
      environ.split('\0').includes(`KUBECRED_HOME=${home}`)
    )
      pids.push(Number(entry));
  }
  return pids;
}

/**
 * A broker whose one profile, "wrapped", runs an exec plugin that prints this token; with the
 * client secret, for tests that talk to the socket directly.
 */
export async function startWrappedBroker(home: string, token: string): Promise<{ broker: TestBroker; secret: string }> {
  const plugin = path.join(home, 'plugin.sh');
  await writeFile(
    plugin,
    `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"${token}"}}'\n`,
    { mode: 0o755 },
  );
  await writeConfig(home, `profiles:\n  - name: wrapped\n    provider: exec\n    command: ${plugin}\n`);
  const broker = await startTestBroker(home);
  const secret = (await readFile(path.join(home, 'run', 'client-secret'), 'utf8')).trim();
  return { broker, secret };
}
