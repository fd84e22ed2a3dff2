import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { sessionEnvironment } from '../platform/sessionEnvironment.js';
import { createInterface } from 'node:readline';
import type { Logger } from '../core/logger.js';
import { LineBudget } from '../core/lineBudget.js';
import { ControlChannel, type RequestHandler } from './controlChannel.js';
import { ProxyChannelDoor, type ChannelChecks } from './proxyChannelDoor.js';

const STDERR_LINES_PER_MINUTE = 30;

/** One running kubecred-proxy and its control channel. */
export interface ProxyProcess {
  readonly channel: ControlChannel;
  readonly pid: number | undefined;
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>;
  stop(): Promise<void>;
}

/** What starting kubecred-proxy needs besides its handlers. */
export interface ProxyLaunch {
  readonly binary: string;
  /** The broker socket's directory (only the user can enter it): the channel's socket goes there. */
  readonly socketDir: string;
  /** Who connected to the channel's socket, and whether the proxy is shielded; absent on Windows. */
  readonly checks: ChannelChecks | undefined;
  readonly logger: Logger;
  /** The proxy variables config.yaml's network sets, over the session's (read at the start); absent: none. */
  readonly proxyVariables?: Readonly<Record<string, string>>;
}

/**
 * Starts kubecred-proxy as this broker's child and takes its control channel. On Linux and
 * macOS that is a Unix socket the proxy connects to after it made itself non-dumpable, taken
 * only from the pid spawned here (see ProxyChannelDoor): the proxy's stdin and stdout, which
 * another program of the user could copy while the proxy starts, are /dev/null. On Windows,
 * stdin and stdout still carry it (docs/exec-proxy.md says why). Either way the channel is the
 * proxy's lifeline: when the broker goes (even by SIGKILL) it closes and the proxy exits,
 * freeing its ports. The proxy's stderr goes to the broker's log, a line at a time (it never
 * writes a secret there).
 */
export async function startProxyProcess(
  launch: ProxyLaunch,
  handlers: Readonly<Record<string, RequestHandler>>,
  onEvent: (event: Readonly<Record<string, unknown>>) => void,
): Promise<ProxyProcess> {
  const { binary, logger, checks } = launch;
  const door = checks ? await ProxyChannelDoor.open(launch.socketDir) : undefined;
  // The session's variables only: nothing a caller's shell left in the broker's environment.
  const child: ChildProcess = spawn(binary, door ? ['--channel', door.socketPath] : [], {
    stdio: door ? ['ignore', 'ignore', 'pipe'] : ['pipe', 'pipe', 'pipe'],
    windowsHide: true,
    env: { ...sessionEnvironment(process.env), ...launch.proxyVariables },
  });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  child.once('error', (error) => logger.warn('kubecred-proxy could not start', { binary, reason: error.message }));
  logStderr(child.stderr!, logger);
  let input: Readable;
  let output: Writable;
  let end: () => void;
  if (door) {
    const socket = await door
      .admit({ pid: child.pid, exited }, checks!, (pid, why) =>
        logger.warn("refused a connection to kubecred-proxy's control channel", {
          ...(pid !== undefined ? { pid } : {}),
          reason: why,
        }),
      )
      .catch((error: unknown) => {
        child.kill('SIGKILL');
        throw error;
      });
    // Writes to a proxy that already exited are lost, not fatal: its requests fail on close.
    socket.on('error', () => undefined);
    [input, output, end] = [socket, socket, () => socket.end()];
  } else {
    child.stdin!.on('error', () => undefined);
    [input, output, end] = [child.stdout!, child.stdin!, () => child.stdin!.end()];
  }
  const channel = new ControlChannel(input, output, handlers, onEvent, (line) =>
    logger.warn('kubecred-proxy wrote a line that is not the protocol', { line: line.slice(0, 120) }),
  );
  input.resume();
  void exited.then(() =>
    channel.close(new Error(`kubecred-proxy exited (${child.exitCode ?? child.signalCode ?? 'did not start'})`)),
  );
  return {
    channel,
    pid: child.pid,
    exited,
    stop: async () => {
      end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The proxy's lines can be set off by any local user connecting to its ports: a budget a minute. */
function logStderr(stderr: Readable, logger: Logger): void {
  const budget = new LineBudget(() => Date.now(), STDERR_LINES_PER_MINUTE);
  createInterface({ input: stderr, crlfDelay: Infinity }).on('line', (line) => {
    const dropped = budget.admit('stderr');
    if (dropped !== undefined)
      logger.info('kubecred-proxy', { line: line.slice(0, 500), ...(dropped ? { droppedBefore: dropped } : {}) });
  });
}
