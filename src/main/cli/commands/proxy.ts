import type { ProxyStatus } from '../../proxy/proxySupervisor.js';
import { printBrokerError } from '../printError.js';
import { UsageError, type Command } from '../io.js';
import { requestStartingBroker } from '../withBroker.js';

const USAGE = 'kubecred proxy ca | kubecred proxy status [-o json]';

export const proxyCommand: Command = {
  name: 'proxy',
  usage: `${USAGE}   (the local CA of kubecred-proxy, for a kubeconfig's certificate-authority-data; what the proxy runs)`,
  async run(args, context) {
    const [what, ...rest] = args;
    const json = rest.length === 2 && rest[0] === '-o' && rest[1] === 'json';
    if (what === 'ca' && rest.length === 0) {
      const answer = await requestStartingBroker(context, (client) => client.call('proxyCa'));
      if (answer.status !== 200) return printBrokerError(answer, context.io.stderr);
      context.io.stdout.write((JSON.parse(answer.body) as { certificatePem: string }).certificatePem);
      return 0;
    }
    if (what !== 'status' || (rest.length > 0 && !json)) throw new UsageError(USAGE);
    const answer = await requestStartingBroker(context, (client) => client.call('proxyStatus'));
    if (answer.status !== 200) return printBrokerError(answer, context.io.stderr);
    if (json) {
      context.io.stdout.write(`${answer.body.trim()}\n`);
      return 0;
    }
    const status = JSON.parse(answer.body) as ProxyStatus;
    if (!status.running) {
      context.io.stdout.write(
        'kubecred-proxy is not running (the first kubectl call of a proxied profile starts it)\n',
      );
      return 0;
    }
    const files = status.openFiles !== undefined && status.openFiles >= 0 ? `, ${status.openFiles} open files` : '';
    context.io.stdout.write(`kubecred-proxy pid ${status.pid}: ${status.goroutines} goroutines${files}\n`);
    for (const { profile, port } of status.listeners)
      context.io.stdout.write(`  ${profile}  https://127.0.0.1:${port}\n`);
    return 0;
  },
};
