import { readSecretInput } from '../readSecretInput.js';
import { printBrokerError } from '../printError.js';
import { UsageError, type Command } from '../io.js';
import { parseOutputFlag } from '../outputFlag.js';
import { requestStartingBroker } from '../withBroker.js';
import { brokerEnvironmentNote } from '../brokerEnvironmentNote.js';

interface TokenRow {
  name: string;
  module: string;
  present: boolean;
  loggedIn: boolean;
  label?: string;
  serial?: string;
  flags?: { countLow: boolean; finalTry: boolean; locked: boolean };
  objects: Array<{ kind: string; label: string }>;
  problem?: string;
}

/** PKCS#11 tokens: what is there (never a secret), and logging in with the PIN from the terminal or stdin. */
export const tokenCommand: Command = {
  name: 'token',
  usage:
    'kubecred token list [-o json]\n       kubecred token login <token>   (PIN from the terminal, or stdin)\n       kubecred token logout <token>',
  async run(args, context) {
    const [sub, name, ...rest] = args;
    const { io } = context;
    if (sub === 'list') {
      const output = parseOutputFlag(name === undefined ? [] : [name, ...rest]);
      const answer = await requestStartingBroker(context, (client) => client.call('tokens'));
      if (answer.status !== 200) return printBrokerError(answer, io.stderr);
      const { tokens } = JSON.parse(answer.body) as { tokens: TokenRow[] };
      io.stdout.write(output === 'json' ? `${JSON.stringify(tokens, null, 2)}\n` : renderTokens(tokens));
      if (tokens.some((t) => !t.present)) io.stderr.write((await brokerEnvironmentNote(context)) ?? '');
      return 0;
    }
    if ((sub !== 'login' && sub !== 'logout') || !name || rest.length > 0)
      throw new UsageError('expected: token list, token login <token> or token logout <token>');
    const body = sub === 'login' ? { pin: await readSecretInput(io, `PIN for token ${name}`) } : undefined;
    if (body && !body.pin) {
      io.stderr.write('kubecred: no PIN given. Type it at the prompt, or pipe it on stdin\n');
      return 1;
    }
    const answer = await requestStartingBroker(context, (client) =>
      body
        ? client.call('tokenLogin', { params: { token: name }, body })
        : client.call('tokenLogout', { params: { token: name } }),
    );
    if (answer.status !== 200) {
      const code = printBrokerError(answer, io.stderr);
      // "not present" from a broker that looks in another SoftHSM or OpenSC configuration.
      if (answer.status === 503) io.stderr.write((await brokerEnvironmentNote(context)) ?? '');
      return code;
    }
    io.stderr.write(
      sub === 'login'
        ? `kubecred: logged in to token ${name}\n`
        : `kubecred: logged out of token ${name}; its PIN is forgotten\n`,
    );
    return 0;
  },
};

function renderTokens(tokens: readonly TokenRow[]): string {
  if (tokens.length === 0) return 'tokens: none configured (add them under tokens: in config.yaml)\n';
  return (
    tokens
      .map((t) => {
        const state = !t.present
          ? `not present${t.problem ? `: ${t.problem}` : ''}`
          : t.loggedIn
            ? 'logged in'
            : 'locked';
        const warn = t.flags?.locked
          ? ' [PIN LOCKED]'
          : t.flags?.finalTry
            ? ' [final PIN try]'
            : t.flags?.countLow
              ? ' [PIN tries low]'
              : '';
        const objects = t.objects.map((o) => `    ${o.kind.padEnd(12)}${o.label}`).join('\n');
        return `${t.name}: ${t.label ?? '?'}${t.serial ? ` (serial ${t.serial})` : ''}, ${state}${warn}\n  module ${t.module}${objects ? `\n${objects}` : ''}`;
      })
      .join('\n') + '\n'
  );
}
