import type { CommandCompletion } from './completionSpec.js';

/** Words the shell may print as they are: the spec's words are letters, digits, "-" and " ". */
const quoted = (words: readonly string[]) => `'${words.join(' ')}'`;

/**
 * The bash completion script: commands, then each command's subcommands and flags, and profile
 * names where one goes (asked of `kubecred profile list -o name` as the Tab is pressed, so a
 * profile added later completes without a new script). zsh runs the same through bashcompinit.
 */
export function bashCompletion(commands: readonly CommandCompletion[]): string {
  const names = [...commands.map((c) => c.name), 'help', 'version'];
  const cases = (pick: (c: CommandCompletion) => readonly string[]) =>
    commands
      .filter((c) => pick(c).length > 0)
      .map((c) => `    ${c.name}) words=${quoted(pick(c))} ;;`)
      .join('\n');
  const profilePaths = commands.flatMap((c) => c.profileAfter).map((path) => `"${path}"`);
  return `# kubecred completion for bash, made by: kubecred completion bash
# Load it in ~/.bashrc with: source <(kubecred completion bash)

_kubecred_profiles() {
  "\${COMP_WORDS[0]}" profile list -o name 2>/dev/null
}

_kubecred() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" words=''
  COMPREPLY=()
  case "$prev" in
    --profile) COMPREPLY=($(compgen -W "$(_kubecred_profiles)" -- "$cur")); return ;;
    -o|--output) COMPREPLY=($(compgen -W 'json text' -- "$cur")); return ;;
  esac
  if ((COMP_CWORD == 1)); then
    COMPREPLY=($(compgen -W ${quoted(names)} -- "$cur"))
    return
  fi
  local command="\${COMP_WORDS[1]}" path="\${COMP_WORDS[1]}" i
  # The words typed so far, flags left out: "secret set" wants a profile next.
  for ((i = 2; i < COMP_CWORD; i++)); do
    [[ "\${COMP_WORDS[i]}" == -* ]] || path+=" \${COMP_WORDS[i]}"
  done
  if [[ "$cur" == -* ]]; then
    case "$command" in
${cases((c) => c.flags)}
    esac
  elif [[ "$path" == "$command" && -n "$(_kubecred_subcommands "$command")" ]]; then
    words="$(_kubecred_subcommands "$command")"
  else
    case "$path" in
      ${profilePaths.length ? profilePaths.join('|') : '""'}) words="$(_kubecred_profiles)" ;;
    esac
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}

_kubecred_subcommands() {
  local words=''
  case "$1" in
${cases((c) => c.subcommands)}
  esac
  printf '%s' "$words"
}

complete -F _kubecred kubecred
`;
}
