import { UsageError, type Command } from '../io.js';
import { parseOutputFlag } from '../outputFlag.js';
import { gatherStatus, renderProfiles } from './status.js';

export const profileCommand: Command = {
  name: 'profile',
  usage: 'kubecred profile list [-o json]',
  async run(args, context) {
    const [sub, ...rest] = args;
    if (sub !== 'list') throw new UsageError(sub ? `unknown profile command "${sub}"` : 'say what to do with profiles');
    const output = parseOutputFlag(rest);
    const report = await gatherStatus(context);
    if (report.configError) context.io.stderr.write(`kubecred: ${report.configError}\n`);
    context.io.stdout.write(output === 'json' ? `${JSON.stringify(report.profiles, null, 2)}\n` : renderProfiles(report.profiles, Date.now()));
    return 0;
  },
};
