import { HEADERS, ROUTES } from '../../shared/api/routes.js';
import { printable } from '../../shared/printable.js';
import type { BrokerAnswer } from '../client/brokerClient.js';
import type { CliContext } from './io.js';
import { printBrokerError } from './printError.js';
import { readSecretInput } from './readSecretInput.js';
import { requestStartingBroker } from './withBroker.js';

/**
 * The broker needs a PIN, an MFA code or a passphrase and the caller has a terminal: ask there (hidden),
 * hand the answer to the broker, and report whether a retry can succeed. One attempt only:
 * a wrong PIN is never tried twice.
 */
export async function answerPromptInTerminal(answer: BrokerAnswer, context: CliContext): Promise<boolean> {
  const prompt = answer.headers[HEADERS.prompt];
  if (typeof prompt !== 'string' || !context.io.stdin.isTTY) return false;
  const [kind, name] = prompt.split(' ');
  const { io } = context;
  const ask =
    kind === 'token-pin' && name
      ? {
          label: `Kubecred: PIN for token ${printable(name, 80)}`,
          path: ROUTES.tokenAction(name, 'login'),
          field: 'pin',
        }
      : kind === 'mfa-code' && name
        ? {
            label: `Kubecred: MFA code for profile ${printable(name, 80)} (one code serves every cluster for the session)`,
            path: ROUTES.profileAction(name, 'mfa'),
            field: 'code',
          }
        : kind === 'login-secret' && name
          ? {
              label: `Kubecred: Keystone password or application credential secret for profile ${printable(name, 80)}`,
              path: ROUTES.profileAction(name, 'login-secret'),
              field: 'secret',
            }
          : kind === 'passphrase'
            ? { label: 'Kubecred: passphrase of the encrypted secret file', path: ROUTES.unlock, field: 'passphrase' }
            : undefined;
  if (!ask) return false;
  const value = await readSecretInput(io, ask.label);
  if (!value) return false;
  const result = await requestStartingBroker(context, (client) =>
    client.request('POST', ask.path, { [ask.field]: value }),
  );
  if (result.status === 200) return true;
  printBrokerError(result, io.stderr);
  return false;
}
