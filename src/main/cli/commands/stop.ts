import { stopBroker } from '../../client/stopBroker.js';
import type { KubecredPaths } from '../../platform/paths.js';
import { liveLockOwner } from '../../server/instanceLock.js';
import { UsageError, type Command } from '../io.js';
import { printBrokerError } from '../printError.js';

/** `kubecred stop`: the broker ends cleanly; the next kubectl call starts a fresh one. */
export const stopCommand: Command = {
  name: 'stop',
  usage: 'kubecred stop   (the next kubectl call, or kubecred daemon, starts a fresh broker)',
  async run(args, context) {
    if (args.length) throw new UsageError('stop takes no arguments');
    const result = await stopBroker(context.paths);
    if (result.failure) return printBrokerError(result.failure, context.io.stderr);
    if (result.silentMs !== undefined) return silentBroker(context.paths, result.silentMs, context.io.stderr);
    context.io.stderr.write(
      result.stopped ? `kubecred: stopped the broker (pid ${result.pid})\n` : 'kubecred: no broker is running\n',
    );
    return 0;
  },
};

/** `kubecred restart`: stop, then start a broker from this shell (its environment, its keychain). */
export const restartCommand: Command = {
  name: 'restart',
  usage: 'kubecred restart   (a fresh broker in the background, started from this shell)',
  async run(args, context) {
    if (args.length) throw new UsageError('restart takes no arguments');
    const result = await stopBroker(context.paths);
    if (result.failure) return printBrokerError(result.failure, context.io.stderr);
    if (result.silentMs !== undefined) return silentBroker(context.paths, result.silentMs, context.io.stderr);
    const { startDaemon } = await import('../startDaemon.js');
    await startDaemon(context);
    context.io.stderr.write(
      `kubecred: ${result.stopped ? 'restarted' : 'started'} the broker; its log is ${context.paths.daemonLog}\n`,
    );
    return 0;
  },
};

/** A broker that took the stop and said nothing (hung, or stopped with SIGSTOP): what to do. */
async function silentBroker(
  paths: KubecredPaths,
  waitedMs: number,
  stderr: { write(text: string): unknown },
): Promise<number> {
  const pid = await liveLockOwner(paths.lockFile);
  stderr.write(
    `kubecred: the broker${pid !== undefined ? ` (pid ${pid})` : ''} took the stop request but answered nothing in ${Math.round(waitedMs / 1000)} s: it is hung or stopped. End it with: kill ${pid ?? '<pid>'} (kill -9 if it stays), then run the command again\n`,
  );
  return 1;
}
