import { ROUTES } from '../../../shared/api/routes.js';
import { printBrokerError } from '../printError.js';
import { UsageError, type Command } from '../io.js';
import { requestStartingBroker } from '../withBroker.js';

export const proxyCommand: Command = {
  name: 'proxy',
  usage: 'kubecred proxy ca   (print the local CA of kubecred-proxy, for a kubeconfig\'s certificate-authority-data)',
  async run(args, context) {
    if (args.length !== 1 || args[0] !== 'ca') throw new UsageError('kubecred proxy ca');
    const answer = await requestStartingBroker(context, (client) => client.request('GET', ROUTES.proxyCa));
    if (answer.status !== 200) return printBrokerError(answer, context.io.stderr);
    context.io.stdout.write((JSON.parse(answer.body) as { certificatePem: string }).certificatePem);
    return 0;
  },
};
