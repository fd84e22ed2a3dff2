import { ROUTES } from '../../../shared/api/routes.js';
import { BrokerClient, type BrokerAnswer } from '../../client/brokerClient.js';
import { UsageError, type CliContext, type Command } from '../io.js';
import { printBrokerError } from '../printError.js';

const STOP_WAIT_MS = 10_000;

/** Asks the running broker to stop and waits until its socket is gone; false when none ran. */
export async function stopBroker({
  paths,
}: CliContext): Promise<{ stopped: boolean; pid?: number; failure?: BrokerAnswer }> {
  const client = new BrokerClient(paths);
  let answer;
  try {
    answer = await client.request('POST', ROUTES.stop);
  } catch {
    return { stopped: false };
  }
  if (answer.status !== 202) return { stopped: false, failure: answer };
  const { pid } = JSON.parse(answer.body) as { pid: number };
  const deadline = Date.now() + STOP_WAIT_MS;
  while (Date.now() < deadline && processAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 50));
  return { stopped: true, pid };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `kubecred stop`: the broker ends cleanly; the next kubectl call starts a fresh one. */
export const stopCommand: Command = {
  name: 'stop',
  usage: 'kubecred stop   (the next kubectl call, or kubecred daemon, starts a fresh broker)',
  async run(args, context) {
    if (args.length) throw new UsageError('stop takes no arguments');
    const result = await stopBroker(context);
    if (result.failure) return printBrokerError(result.failure, context.io.stderr);
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
    const result = await stopBroker(context);
    if (result.failure) return printBrokerError(result.failure, context.io.stderr);
    const { startDaemon } = await import('../startDaemon.js');
    await startDaemon(context);
    context.io.stderr.write(
      `kubecred: ${result.stopped ? 'restarted' : 'started'} the broker; its log is ${context.paths.daemonLog}\n`,
    );
    return 0;
  },
};
