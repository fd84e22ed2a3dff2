import { PROVIDER_FACTS, PROVIDER_KINDS } from '../../../shared/config/providerFacts.js';
import { profileName } from '../../../shared/config/schema.js';
import { addProfile, updateProfile } from '../../config/configEditor.js';
import { loadConfig } from '../../config/configLoader.js';
import { loadServedConfig } from '../../config/configSource.js';
import { printBrokerError } from '../printError.js';
import { requestStartingBroker } from '../withBroker.js';
import { requestProfileRemoval } from '../removeProfileThroughBroker.js';
import { UsageError, type CliContext, type Command } from '../io.js';
import { parseOutputFlag } from '../outputFlag.js';
import { profileFromFlags } from '../profileFlags.js';
import { profileAddHelp } from '../profileAddHelp.js';
import { askProfileInteractively } from '../profilePrompts.js';
import { exitCodeOfReport, gatherStatus, renderProfiles } from './status.js';

export const profileCommand: Command = {
  name: 'profile',
  usage: `kubecred profile list [-o json|name]\n       kubecred profile add <name> --provider ${PROVIDER_KINDS.join('|')} [--<field> <value> ...]\n       kubecred profile add <name>   (asks, in a terminal)\n       kubecred profile set <profile> --<field> <value> ... [--unset <field> ...]\n       kubecred profile rm <profile>   (and its secrets in the secret store)\n       kubecred profile add --help   (the fields of each provider)`,
  async help(args) {
    return args[0] === 'add' || args[0] === 'set' ? profileAddHelp() : undefined;
  },
  async run(args, context) {
    const [sub, ...rest] = args;
    const { io } = context;
    if (sub === 'add') {
      const [name, ...flags] = rest;
      if (!name || name.startsWith('-'))
        throw new UsageError('expected: profile add <name> --provider <provider> [...]');
      let input = profileFromFlags(name, flags);
      if (input.provider === undefined) {
        if (!io.stdin.isTTY)
          throw new UsageError(
            `give --provider (${PROVIDER_KINDS.join(', ')}) and its fields, or run in a terminal to be asked`,
          );
        await refuseBeforeAsking(context.paths.configFile, name);
        input = await askProfileInteractively(io, name);
      }
      const profile = await addProfile(context.paths.configFile, input);
      io.stderr.write(`kubecred: added profile ${profile.name} (${profile.provider}) to ${context.paths.configFile}\n`);
      const next = PROVIDER_FACTS[profile.provider].nextStep?.(profile.name);
      if (next) io.stderr.write(`  next: ${next}\n`);
      return 0;
    }
    if (sub === 'set') {
      const [name, ...flags] = rest;
      if (!name || name.startsWith('-') || flags.length === 0)
        throw new UsageError('expected: profile set <name> --field value ... [--unset field]');
      const unset = flags.flatMap((flag, i) => (flag === '--unset' && flags[i + 1] ? [flags[i + 1]!] : []));
      const kept = flags.filter((flag, i) => flag !== '--unset' && flags[i - 1] !== '--unset');
      const { name: _name, ...changes } = profileFromFlags(name, kept);
      await updateProfile(context.paths.configFile, name, {
        ...(changes as Record<string, string | string[]>),
        ...Object.fromEntries(unset.map((field) => [field, null])),
      });
      io.stderr.write(`kubecred: changed profile ${name} in ${context.paths.configFile}\n`);
      return 0;
    }
    if (sub === 'rm') {
      const [name, ...extra] = rest;
      if (!name || extra.length) throw new UsageError('expected: profile rm <name>');
      // Its secrets first: once config.yaml no longer names it, nothing would point at them.
      const listed = await requestStartingBroker(context, (client) =>
        client.call('listSecrets', { params: { profile: name } }),
      );
      if (listed.status !== 200) return printBrokerError(listed, io.stderr);
      const { fields } = JSON.parse(listed.body) as { fields: string[] };
      for (const field of fields) {
        const removed = await requestStartingBroker(context, (client) =>
          client.call('deleteSecret', { params: { profile: name, field } }),
        );
        if (removed.status !== 200) return printBrokerError(removed, io.stderr);
      }
      const removed = await requestProfileRemoval(context, name);
      if (removed.status !== 200) return printBrokerError(removed, io.stderr);
      io.stderr.write(
        `kubecred: removed profile ${name} from ${context.paths.configFile}${fields.length ? ` and its secrets (${fields.join(', ')}) from the secret store` : ''}\n`,
      );
      return 0;
    }
    if (sub !== 'list') throw new UsageError(sub ? `unknown profile command "${sub}"` : 'say what to do with profiles');
    const output = parseOutputFlag(rest, ['text', 'json', 'name']);
    if (output === 'name') return listNames(context);
    const report = await gatherStatus(context);
    if (report.configError) io.stderr.write(`kubecred: ${report.configError}\n`);
    io.stdout.write(
      output === 'json'
        ? `${JSON.stringify(report.profiles, null, 2)}\n`
        : renderProfiles(report.profiles, Date.now(), report.configError !== null),
    );
    return exitCodeOfReport(report);
  },
};

/**
 * One profile name a line, from what a broker serves (config.yaml, or while it is broken its last
 * good copy), without asking a broker: shell completion runs it at every Tab.
 */
async function listNames({ io, paths }: CliContext): Promise<number> {
  const { config, error } = await loadServedConfig(paths.configFile, paths.stateDir);
  io.stdout.write((config?.profiles ?? []).map((profile) => `${profile.name}\n`).join(''));
  if (error) io.stderr.write(`kubecred: ${error}\n`);
  return exitCodeOfReport({ configError: error });
}

/** A name that cannot be added is said before the questions, not after every answer was typed. */
async function refuseBeforeAsking(configFile: string, name: string): Promise<void> {
  const named = profileName.safeParse(name);
  if (!named.success)
    throw new UsageError(
      `"${name}" cannot be a profile name: ${named.error.issues[0]?.message ?? 'not a profile name'}`,
    );
  const loaded = await loadConfig(configFile);
  if (!loaded.ok)
    throw new Error(
      `config.yaml cannot be changed while it is invalid (it was left untouched; fix it by hand first):\n${loaded.error}`,
    );
  if (loaded.config.profiles.some((profile) => profile.name === name)) {
    throw new Error(
      `a profile named "${name}" already exists in ${configFile}. Change it with: kubecred profile set ${name} --field value (kubecred profile add --help lists the fields), or remove it with: kubecred profile rm ${name}`,
    );
  }
}
