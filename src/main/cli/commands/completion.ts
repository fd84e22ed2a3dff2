import { bashCompletion } from '../completionBash.js';
import { fishCompletion } from '../completionFish.js';
import { commandCompletion, type CommandCompletion } from '../completionSpec.js';
import { zshCompletion } from '../completionZsh.js';
import { UsageError, type Command } from '../io.js';

const SHELLS: Record<string, (commands: readonly CommandCompletion[]) => string> = {
  bash: bashCompletion,
  zsh: zshCompletion,
  fish: fishCompletion,
};

/** A command as the table lists it: enough to read its usage. */
interface ListedCommand {
  readonly name: string;
  readonly summary: string;
  load(): Promise<Pick<Command, 'usage'>>;
}

/**
 * `kubecred completion bash`: a completion script made from the command table and each
 * command's usage. The table hands itself in, as it lists this command too.
 */
export const completionCommandFor = (table: readonly ListedCommand[]): Command => ({
  name: 'completion',
  usage: `kubecred completion ${Object.keys(SHELLS).join('|')}   (bash: source <(kubecred completion bash) in ~/.bashrc)`,
  async run(args, { io }) {
    const [shell, ...rest] = args;
    const generate = shell === undefined ? undefined : SHELLS[shell];
    if (!generate || rest.length > 0)
      throw new UsageError(`say which shell: kubecred completion ${Object.keys(SHELLS).join('|')}`);
    const commands = await Promise.all(
      table.map(async (entry) => commandCompletion(entry.name, entry.summary, (await entry.load()).usage)),
    );
    io.stdout.write(generate(commands));
    return 0;
  },
});
