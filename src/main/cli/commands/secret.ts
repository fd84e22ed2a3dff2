import { ROUTES } from '../../../shared/api/routes.js';
import { errorBodySchema, renderErrorLine } from '../../../shared/api/errors.js';
import { readSecretInput } from '../readSecretInput.js';
import { UsageError, type Command } from '../io.js';
import { requestStartingBroker } from '../withBroker.js';

/** Secrets go in through stdin (or a hidden prompt), never argv, and are held by the broker's store. */
export const secretCommand: Command = {
  name: 'secret',
  usage: 'kubecred secret set <profile> <field>   (value on stdin)\n       kubecred secret rm <profile> <field>',
  async run(args, context) {
    const [sub, profile, field, ...rest] = args;
    if ((sub !== 'set' && sub !== 'rm') || !profile || !field || rest.length > 0) {
      throw new UsageError(rest.length > 0 ? 'secret values are read from stdin, never from arguments' : 'expected: secret set|rm <profile> <field>');
    }
    const { io } = context;
    if (sub === 'set') {
      const value = await readSecretInput(io, `${profile}/${field}`);
      if (!value) {
        io.stderr.write('kubecred: no value on stdin. Pipe it in, e.g. kubecred secret set demo token < token.txt\n');
        return 1;
      }
      const answer = await requestStartingBroker(context, (client) => client.request('PUT', ROUTES.secret(profile, field), { value }));
      if (answer.status === 204) {
        io.stderr.write(`kubecred: stored ${profile}/${field}\n`);
        return 0;
      }
      return printError(answer.body, io.stderr);
    }
    const answer = await requestStartingBroker(context, (client) => client.request('DELETE', ROUTES.secret(profile, field)));
    if (answer.status === 200) {
      const { deleted } = JSON.parse(answer.body) as { deleted: boolean };
      io.stderr.write(deleted ? `kubecred: removed ${profile}/${field}\n` : `kubecred: ${profile}/${field} was not stored\n`);
      return 0;
    }
    return printError(answer.body, io.stderr);
  },
};

function printError(body: string, stderr: NodeJS.WritableStream): number {
  const parsed = errorBodySchema.safeParse(safeJson(body));
  stderr.write(parsed.success ? renderErrorLine(parsed.data.error) : `kubecred: ${body.trim()}\n`);
  return 1;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
