import type { CommandCompletion } from './completionSpec.js';

/** fish quotes: single quotes, with ' and \ escaped. */
const fishQuoted = (text: string) => `'${text.replace(/[\\']/g, (c) => `\\${c}`)}'`;

/**
 * The fish completion script: one `complete` line per command, subcommand list, flag and
 * profile position; profile names are asked of `kubecred profile list -o name` as Tab is pressed.
 */
export function fishCompletion(commands: readonly CommandCompletion[]): string {
  const profiles = "'(kubecred profile list -o name 2>/dev/null)'";
  const lines = commands.flatMap((c) => {
    const on = fishQuoted(`test (__kubecred_command) = ${c.name}`);
    return [
      `complete -c kubecred -n 'test -z (__kubecred_path)' -a ${c.name} -d ${fishQuoted(c.summary.slice(0, 80))}`,
      ...(c.subcommands.length
        ? [
            `complete -c kubecred -n ${fishQuoted(`test (__kubecred_path) = ${c.name}`)} -a '${c.subcommands.join(' ')}'`,
          ]
        : []),
      ...c.flags
        .filter((flag) => flag.startsWith('--'))
        .map((flag) =>
          flag === '--profile'
            ? `complete -c kubecred -n ${on} -l profile -r -a ${profiles}`
            : `complete -c kubecred -n ${on} -l ${flag.slice(2)}`,
        ),
      ...(c.flags.includes('-o') ? [`complete -c kubecred -n ${on} -s o -r -a 'json text'`] : []),
      ...c.profileAfter.map(
        (path) => `complete -c kubecred -n ${fishQuoted(`test (__kubecred_path) = '${path}'`)} -a ${profiles}`,
      ),
    ];
  });
  return `# kubecred completion for fish, made by: kubecred completion fish
# Install it with: kubecred completion fish > ~/.config/fish/completions/kubecred.fish

# The words typed after kubecred so far, flags left out: "secret set".
function __kubecred_path
    set -l words (commandline -opc)
    set -e words[1]
    string join ' ' (string match -v -- '-*' $words)
end

function __kubecred_command
    string split -f1 ' ' (__kubecred_path)
end

complete -c kubecred -f
complete -c kubecred -n 'test -z (__kubecred_path)' -a 'help version'
${lines.join('\n')}
`;
}
