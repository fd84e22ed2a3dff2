import { HEADERS } from '../../../shared/api/routes.js';
import type { CredentialRequest } from '../../../shared/api/credentialRequest.js';
import type { Command } from '../io.js';
import { secretSourceEnvironment } from '../../../shared/api/secretSourceVariables.js';
import { answerPromptInTerminal } from '../terminalPrompt.js';
import { requestStartingBroker } from '../withBroker.js';

/** The exec plugin in Node: same request as the Go shim, plus starting the broker when none runs. */
export const credentialCommand: Command = {
  name: 'credential',
  usage:
    'kubecred credential <profile> [--api-version client.authentication.k8s.io/v1|v1beta1]\n       (called by kubectl from the kubeconfig exec block; --api-version only for clients that send no KUBERNETES_EXEC_INFO, such as @kubernetes/client-node)',
  async run(args, context) {
    const { io } = context;
    const body: CredentialRequest = {
      argv: ['credential', ...args],
      execInfo: io.env.KUBERNETES_EXEC_INFO ?? null,
      stdinIsTerminal: io.stdin.isTTY === true,
      parentPid: process.ppid,
      client: 'node',
      environment: secretSourceEnvironment(io.env),
    };
    // What the request waits for (a login, an approval) goes to kubectl's stderr as it happens.
    const onNotice = (text: string) => io.stderr.write(`kubecred: ${text}\n`);
    const ask = () =>
      requestStartingBroker(context, (client) => client.call('credential', { body, accept: 'text/plain', onNotice }));
    let answer = await ask();
    if (answer.status !== 200) {
      const typed = await answerPromptInTerminal(answer, context);
      if (typed === 'refused') return 1;
      if (typed === 'accepted') answer = await ask();
    }
    if (answer.status === 200) {
      io.stdout.write(answer.body);
      return 0;
    }
    io.stderr.write(answer.body.endsWith('\n') ? answer.body : `${answer.body}\n`);
    const code = Number(answer.headers[HEADERS.exitCode]);
    return Number.isInteger(code) && code > 0 ? code : 1;
  },
};
