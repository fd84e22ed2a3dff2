import { bashCompletion } from './completionBash.js';
import type { CommandCompletion } from './completionSpec.js';

/**
 * The zsh completion script: the bash one, through zsh's own bashcompinit, so the two shells
 * complete alike from one generator.
 */
export function zshCompletion(commands: readonly CommandCompletion[]): string {
  return `#compdef kubecred
# kubecred completion for zsh, made by: kubecred completion zsh
# Load it in ~/.zshrc (after compinit) with: source <(kubecred completion zsh)

autoload -U +X bashcompinit && bashcompinit
${bashCompletion(commands).replace(/^# .*\n/gm, '')}`;
}
