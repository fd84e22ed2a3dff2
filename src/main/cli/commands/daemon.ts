import { mkdir } from 'node:fs/promises';
import { jsonLinesLogger } from '../../core/logger.js';
import { loadServedConfig } from '../../config/configSource.js';
import { daemonLogWriter } from '../../state/daemonLogWriter.js';
import { DEFAULT_LOG_LIMITS } from '../../../shared/config/schema.js';
import { startBroker } from '../../hosts/startBroker.js';
import { AlreadyRunningError } from '../../server/instanceLock.js';
import { untilStopSignal } from '../../platform/stopSignals.js';
import { forbidCoreDumps } from '../../platform/peerCredentials.js';
import { privateBrowserOpener } from '../../platform/privateLinkOpener.js';
import { UsageError, type Command } from '../io.js';
import { ALREADY_RUNNING_EXIT } from '../startDaemon.js';

export const daemonCommand: Command = {
  name: 'daemon',
  usage: 'kubecred daemon [--ui]   (--ui: serve the web UI on loopback and open it)',
  async run(args, context) {
    const { paths, io } = context;
    const webUi = args.includes('--ui');
    const stray = args.find((a) => a !== '--ui');
    if (stray) throw new UsageError(`unexpected argument "${stray}"`);
    // daemon.log is rotated at config.yaml's logs.maxBytes (read at start); a terminal is not.
    const limits = (await loadServedConfig(paths.configFile, paths.stateDir)).config?.logs ?? DEFAULT_LOG_LIMITS;
    const write =
      io.stderr === process.stderr
        ? daemonLogWriter(process.stderr.fd, paths.daemonLog, limits)
        : (line: string) => void io.stderr.write(line);
    const logger = jsonLinesLogger(write);
    // Not the directory of whichever shell started it: nothing may resolve against that.
    await mkdir(paths.home, { recursive: true, mode: 0o700 });
    process.chdir(paths.home);
    if (!forbidCoreDumps())
      logger.warn(
        'could not turn off core dumps and ptrace for the broker (no peer-credentials addon: run npm run build)',
      );
    // Listening from the start: a stop signal during startup must still end in a clean close.
    const stopped = untilStopSignal();
    let server;
    try {
      server = await startBroker(paths, logger, { webUi });
    } catch (error) {
      if (error instanceof AlreadyRunningError) {
        const which = `a Kubecred broker is already running${Number.isNaN(error.pid) ? '' : ` (pid ${error.pid})`} on ${paths.socket}`;
        // Asked for the UI: the running broker serves it (it starts its web UI on request).
        if (webUi) {
          io.stderr.write(`kubecred: ${which}; opening its web UI\n`);
          return (await import('./ui.js')).uiCommand.run([], context);
        }
        io.stderr.write(`kubecred: ${which}. Use it, or stop it with: kubecred stop\n`);
        return ALREADY_RUNNING_EXIT;
      }
      throw error;
    }
    io.stderr.write(
      `kubecred: broker running on ${server.socket} (pid ${process.pid}); Ctrl-C or \`kubecred stop\` stops it\n`,
    );
    if (server.webUiLink) {
      const opened = await privateBrowserOpener(paths, io.env).open(server.webUiLink);
      io.stderr.write(
        opened
          ? 'kubecred: the web UI is open in your browser; `kubecred ui` opens it again\n'
          : 'kubecred: web UI ready; run `kubecred ui` for a link to open in a browser on this machine\n',
      );
    }
    const running = server;
    const signal = await Promise.race([stopped, running.stopRequested.then(() => 'a stop request' as const)]);
    logger.info('stopping', { signal });
    await running.close();
    return 0;
  },
};
