import { jsonLinesLogger } from '../../broker/logger.js';
import { startHeadlessBroker } from '../../headlessBroker.js';
import { AlreadyRunningError } from '../../server/instanceLock.js';
import type { Command } from '../io.js';
import { ALREADY_RUNNING_EXIT } from '../startDaemon.js';

export const daemonCommand: Command = {
  name: 'daemon',
  usage: 'kubecred daemon',
  async run(_args, { paths, io }) {
    const logger = jsonLinesLogger((line) => io.stderr.write(line));
    let server;
    try {
      server = await startHeadlessBroker(paths, logger);
    } catch (error) {
      if (error instanceof AlreadyRunningError) {
        io.stderr.write(`kubecred: a Kubecred broker is already running${Number.isNaN(error.pid) ? '' : ` (pid ${error.pid})`} on ${paths.socket}. Use it, or stop it first\n`);
        return ALREADY_RUNNING_EXIT;
      }
      throw error;
    }
    io.stderr.write(`kubecred: broker running on ${server.socket} (pid ${process.pid}); Ctrl-C stops it\n`);
    const running = server;
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        logger.info('stopping', { signal });
        void running.close().then(resolve);
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
    return 0;
  },
};
