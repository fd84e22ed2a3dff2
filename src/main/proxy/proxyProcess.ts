import { spawn, type ChildProcess } from 'node:child_process';
import { sessionEnvironment } from '../platform/sessionEnvironment.js';
import { createInterface } from 'node:readline';
import type { Logger } from '../core/logger.js';
import { LineBudget } from '../core/lineBudget.js';
import { ControlChannel, type RequestHandler } from './controlChannel.js';

const STDERR_LINES_PER_MINUTE = 30;

/** One running kubecred-proxy and its control channel. */
export interface ProxyProcess {
  readonly channel: ControlChannel;
  readonly pid: number | undefined;
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts kubecred-proxy as this broker's child. Its stdin is the control channel: when the
 * broker goes (even by SIGKILL) the pipe closes and the proxy exits, freeing its ports. The
 * proxy's stderr goes to the broker's log, a line at a time (it never writes a secret there).
 */
export function startProxyProcess(
  binary: string,
  handlers: Readonly<Record<string, RequestHandler>>,
  onEvent: (event: Readonly<Record<string, unknown>>) => void,
  logger: Logger,
): ProxyProcess {
  // The session's variables only: nothing a caller's shell left in the broker's environment.
  const child: ChildProcess = spawn(binary, [], {
    stdio: ['pipe', 'pipe', 'pipe'],
    windowsHide: true,
    env: sessionEnvironment(process.env),
  });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  child.once('error', (error) => logger.warn('kubecred-proxy could not start', { binary, reason: error.message }));
  // Writes to a proxy that already exited are lost, not fatal: its requests fail on close.
  child.stdin!.on('error', () => undefined);
  const channel = new ControlChannel(child.stdout!, child.stdin!, handlers, onEvent, (line) =>
    logger.warn('kubecred-proxy wrote a line that is not the protocol', { line: line.slice(0, 120) }),
  );
  // The proxy's lines can be set off by any local user connecting to its ports: a budget a minute.
  const budget = new LineBudget(() => Date.now(), STDERR_LINES_PER_MINUTE);
  createInterface({ input: child.stderr!, crlfDelay: Infinity }).on('line', (line) => {
    const dropped = budget.admit('stderr');
    if (dropped !== undefined)
      logger.info('kubecred-proxy', { line: line.slice(0, 500), ...(dropped ? { droppedBefore: dropped } : {}) });
  });
  void exited.then(() =>
    channel.close(new Error(`kubecred-proxy exited (${child.exitCode ?? child.signalCode ?? 'did not start'})`)),
  );
  return {
    channel,
    pid: child.pid,
    exited,
    stop: async () => {
      child.stdin!.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
