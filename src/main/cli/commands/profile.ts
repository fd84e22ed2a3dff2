import { addProfile } from '../../config/configEditor.js';
import { UsageError, type Command } from '../io.js';
import { parseOutputFlag } from '../outputFlag.js';
import { profileFromFlags } from '../profileFlags.js';
import { askProfileInteractively } from '../profilePrompts.js';
import { gatherStatus, renderProfiles } from './status.js';

export const profileCommand: Command = {
  name: 'profile',
  usage: 'kubecred profile list [-o json]\n       kubecred profile add <name> --provider static|exec|oidc|keystone|eks [--field value ...]\n       kubecred profile add <name>   (asks, in a terminal)',
  async run(args, context) {
    const [sub, ...rest] = args;
    const { io } = context;
    if (sub === 'add') {
      const [name, ...flags] = rest;
      if (!name || name.startsWith('-')) throw new UsageError('expected: profile add <name> --provider <provider> [...]');
      let input = profileFromFlags(name, flags);
      if (input.provider === undefined) {
        if (!io.stdin.isTTY) throw new UsageError('give --provider (static, exec, oidc, keystone or eks) and its fields, or run in a terminal to be asked');
        input = await askProfileInteractively(io, name);
      }
      const profile = await addProfile(context.paths.configFile, input);
      io.stderr.write(`kubecred: added profile ${profile.name} (${profile.provider}) to ${context.paths.configFile}\n`);
      if (profile.provider === 'static') io.stderr.write(`  next: kubecred secret set ${profile.name} token < token.txt\n`);
      if (profile.provider === 'oidc' || profile.provider === 'keystone') io.stderr.write(`  next: kubecred login ${profile.name}\n`);
      return 0;
    }
    if (sub !== 'list') throw new UsageError(sub ? `unknown profile command "${sub}"` : 'say what to do with profiles');
    const output = parseOutputFlag(rest);
    const report = await gatherStatus(context);
    if (report.configError) io.stderr.write(`kubecred: ${report.configError}\n`);
    io.stdout.write(output === 'json' ? `${JSON.stringify(report.profiles, null, 2)}\n` : renderProfiles(report.profiles, Date.now()));
    return 0;
  },
};
