import { readSecretInput } from '../readSecretInput.js';
import { printBrokerError } from '../printError.js';
import { UsageError, type Command } from '../io.js';
import { requestStartingBroker } from '../withBroker.js';

export const unlockCommand: Command = {
  name: 'unlock',
  usage: 'kubecred unlock   (passphrase of the encrypted secret file, from the terminal or stdin)',
  async run(args, context) {
    if (args.length > 0)
      throw new UsageError('the passphrase is read from the terminal or stdin, never from arguments');
    const passphrase = await readSecretInput(context.io, 'Passphrase for the encrypted secret file');
    if (!passphrase) {
      context.io.stderr.write('kubecred: no passphrase given\n');
      return 1;
    }
    const answer = await requestStartingBroker(context, (client) => client.call('unlock', { body: { passphrase } }));
    if (answer.status !== 200) return printBrokerError(answer, context.io.stderr);
    const { created } = JSON.parse(answer.body) as { created: boolean };
    context.io.stderr.write(
      created
        ? 'kubecred: created a new encrypted secret file with this passphrase; keep it safe, it cannot be recovered\n'
        : 'kubecred: unlocked\n',
    );
    return 0;
  },
};

export const lockCommand: Command = {
  name: 'lock',
  usage: 'kubecred lock   (forget cached credentials, PINs and the file key now)',
  async run(args, context) {
    if (args.length > 0) throw new UsageError('lock takes no arguments');
    const answer = await requestStartingBroker(context, (client) => client.call('lock'));
    if (answer.status !== 200) return printBrokerError(answer, context.io.stderr);
    context.io.stderr.write('kubecred: locked: cached credentials, PINs and the file key are forgotten\n');
    return 0;
  },
};
