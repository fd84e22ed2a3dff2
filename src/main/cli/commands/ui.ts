import { privateBrowserOpener } from '../../platform/privateLinkOpener.js';
import { UsageError, type Command } from '../io.js';
import { printBrokerError } from '../printError.js';
import { requestStartingBroker } from '../withBroker.js';

/**
 * Opens the web UI with a fresh one-time link (or prints it where no browser opens). Often a
 * person's first command: with no broker running, it starts one, as kubectl's shim would.
 */
export const uiCommand: Command = {
  name: 'ui',
  usage: 'kubecred ui [--print]',
  async run(args, context) {
    const { paths, io } = context;
    const print = args.includes('--print');
    if (args.some((a) => a !== '--print')) throw new UsageError('ui takes only --print');
    const answer = await requestStartingBroker(context, (client) => client.call('webUiLink'));
    if (answer.status !== 200) return printBrokerError(answer, io.stderr);
    const { url } = JSON.parse(answer.body) as { url: string };
    if (!print && (await privateBrowserOpener(paths, io.env).open(url))) {
      io.stderr.write('kubecred: opened the web UI in your browser\n');
      return 0;
    }
    // The link works once and only from this machine's loopback. stdout holds the link alone (for
    // scripts); a person is told on stderr why no browser came up and what to do with it.
    if (!print)
      io.stderr.write(
        'kubecred: could not open a browser here; open this link in a browser on this machine (it works once), or set KUBECRED_BROWSER to a browser program:\n',
      );
    io.stdout.write(`${url}\n`);
    return 0;
  },
};
