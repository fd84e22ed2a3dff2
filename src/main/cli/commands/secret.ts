import { readSecretInput } from '../readSecretInput.js';
import { refuseUnknownSecretTarget } from '../secretTarget.js';
import { printBrokerError } from '../printError.js';
import { parseErrorBody } from '../../../shared/api/errors.js';
import { printable } from '../../../shared/printable.js';
import { UsageError, type CliContext, type Command } from '../io.js';
import { requestStartingBroker } from '../withBroker.js';

/** Secrets go in through stdin (or a hidden prompt), never argv; list shows names only. */
export const secretCommand: Command = {
  name: 'secret',
  usage:
    'kubecred secret set <profile> <field>   (value on stdin)\n       kubecred secret rm <profile> <field>\n       kubecred secret list <profile>',
  async run(args, context) {
    const [sub, profile, field, ...rest] = args;
    const { io } = context;
    if (sub === 'list' && profile && field === undefined) {
      const answer = await requestStartingBroker(context, (client) =>
        client.call('listSecrets', { params: { profile } }),
      );
      if (answer.status !== 200) return printBrokerError(answer, io.stderr);
      const { store, fields } = JSON.parse(answer.body) as { store: string; fields: string[] };
      io.stdout.write(fields.length ? `${fields.join('\n')}\n` : '');
      io.stderr.write(`kubecred: ${fields.length} secret(s) of ${profile} in the ${store}\n`);
      return 0;
    }
    if ((sub !== 'set' && sub !== 'rm') || !profile || !field || rest.length > 0) {
      throw new UsageError(
        rest.length > 0
          ? 'secret values are read from stdin, never from arguments'
          : 'expected: secret set|rm <profile> <field>, or secret list <profile>',
      );
    }
    if (sub === 'set') {
      await refuseUnknownSecretTarget(context.paths, profile, field);
      const value = await readSecretInput(io, `${profile}/${field}`);
      if (!value) {
        io.stderr.write(
          `kubecred: no value on stdin. Pipe it in, e.g. kubecred secret set ${profile} ${field} < ${field}.txt\n`,
        );
        return 1;
      }
      const answer = await storeKeepingTheValue(context, profile, field, value);
      if (answer.status !== 204) return printBrokerError(answer, io.stderr);
      io.stderr.write(`kubecred: stored ${profile}/${field}\n`);
      return 0;
    }
    const answer = await requestStartingBroker(context, (client) =>
      client.call('deleteSecret', { params: { profile, field } }),
    );
    if (answer.status !== 200) return printBrokerError(answer, io.stderr);
    const { deleted } = JSON.parse(answer.body) as { deleted: boolean };
    io.stderr.write(
      deleted ? `kubecred: removed ${profile}/${field}\n` : `kubecred: ${profile}/${field} was not stored\n`,
    );
    return 0;
  },
};

/** How many times a wrong PIN is asked again before the command gives up. */
const PIN_TRIES = 3;

/**
 * Stores the value, saying meanwhile what the broker waits for (a token's PIN in the window). A
 * wrong PIN does not lose what was typed: the value is still here, so the PIN is asked again,
 * a few times at most, each try counting against the token as any PIN does.
 */
async function storeKeepingTheValue(context: CliContext, profile: string, field: string, value: string) {
  const onNotice = (text: string) => context.io.stderr.write(`kubecred: ${text}\n`);
  for (let attempt = 1; ; attempt++) {
    const answer = await requestStartingBroker(context, (client) =>
      client.call('storeSecret', { params: { profile, field }, body: { value }, onNotice }),
    );
    const refused = answer.status === 204 ? undefined : parseErrorBody(answer.body)?.error;
    if (
      !refused ||
      refused.code !== 'pin-incorrect' ||
      /\blocked\b/i.test(`${refused.message} ${refused.hint ?? ''}`) ||
      attempt >= PIN_TRIES
    )
      return answer;
    context.io.stderr.write(
      `kubecred: ${printable(refused.message)}\nkubecred: the value you typed is kept; give the PIN again where it is asked (Cancel ends)\n`,
    );
  }
}
