import { HEADERS } from '../../shared/api/routes.js';
import { printable } from '../../shared/printable.js';
import type { BrokerAnswer, BrokerClient } from '../client/brokerClient.js';
import type { CliContext } from './io.js';
import { printBrokerError } from './printError.js';
import { readSecretInput } from './readSecretInput.js';
import { requestStartingBroker } from './withBroker.js';

/**
 * What came of a question the broker could not ask itself: `not-asked` when no terminal (or no
 * known question) could take it, the broker's own words then stand; `accepted`, a retry can
 * succeed; `refused` when the person was asked and the answer was wrong or empty: that is said
 * already, and it is the last word (the broker's "no window to ask in" would contradict it).
 */
export type TerminalAnswer = 'not-asked' | 'accepted' | 'refused';

/**
 * The broker needs a PIN, an MFA code or a passphrase and the caller has a terminal: ask there (hidden),
 * hand the answer to the broker. One attempt only: a wrong PIN is never tried twice.
 */
export async function answerPromptInTerminal(answer: BrokerAnswer, context: CliContext): Promise<TerminalAnswer> {
  const prompt = answer.headers[HEADERS.prompt];
  if (typeof prompt !== 'string' || !context.io.stdin.isTTY) return 'not-asked';
  const [kind, name] = prompt.split(' ');
  const { io } = context;
  const ask =
    kind === 'token-pin' && name
      ? {
          label: `Kubecred: PIN for token ${printable(name, 80)}`,
          send: (client: BrokerClient, pin: string) =>
            client.call('tokenLogin', { params: { token: name }, body: { pin } }),
        }
      : kind === 'mfa-code' && name
        ? {
            label: `Kubecred: MFA code for profile ${printable(name, 80)} (one code serves every cluster for the session)`,
            send: (client: BrokerClient, code: string) =>
              client.call('mfaCode', { params: { profile: name }, body: { code } }),
          }
        : kind === 'login-secret' && name
          ? {
              label: `Kubecred: Keystone password or application credential secret for profile ${printable(name, 80)}`,
              send: (client: BrokerClient, secret: string) =>
                client.call('loginSecret', { params: { profile: name }, body: { secret } }),
            }
          : kind === 'passphrase'
            ? {
                label: 'Kubecred: passphrase of the encrypted secret file',
                send: (client: BrokerClient, passphrase: string) => client.call('unlock', { body: { passphrase } }),
              }
            : undefined;
  if (!ask) return 'not-asked';
  const value = await readSecretInput(io, ask.label);
  if (!value) {
    io.stderr.write('kubecred: nothing was typed, so nothing was tried; run the command again to be asked again\n');
    return 'refused';
  }
  const result = await requestStartingBroker(context, (client) => ask.send(client, value));
  if (result.status === 200) return 'accepted';
  printBrokerError(result, io.stderr);
  return 'refused';
}
