import type { PendingPrompt } from '../../shared/api/prompts.js';
import { printable } from '../../shared/printable.js';

/** The questions waiting on the person, and word when that changes. */
export interface PromptSource {
  list(): PendingPrompt[];
  onChange(listener: () => void): () => void;
}

/**
 * While a guard holds a request for the person's Allow, the program that sent it hears why at
 * once, in its terminal: kubectl itself cannot say anything until the cluster answers, and a
 * kubectl that hangs in silence looks broken. Each question is told once; the words come from
 * the request (what a local program sent), so only their printable part is written.
 */
export function tellGuardWaits(
  prompts: PromptSource,
  tell: (pid: number, line: string) => boolean,
  clockTime: (epochMs: number) => string = localClockTime,
): () => void {
  const told = new Set<string>();
  const check = () => {
    const open = prompts.list();
    for (const prompt of open) {
      if (prompt.kind !== 'approval' || !prompt.guard || told.has(prompt.id)) continue;
      told.add(prompt.id);
      const pid = prompt.caller.pid;
      if (pid !== undefined) tell(pid, guardWaitLine(prompt, clockTime(Date.parse(prompt.expiresAt))));
    }
    // Forget answered ones: the set stays as small as the queue.
    const ids = new Set(open.map((p) => p.id));
    for (const id of told) if (!ids.has(id)) told.delete(id);
  };
  const off = prompts.onChange(check);
  check();
  return off;
}

function guardWaitLine(prompt: Extract<PendingPrompt, { kind: 'approval' }>, until: string): string {
  const guard = prompt.guard!;
  return (
    `kubecred: ${printable(guard.action, 200)} waits for your Allow (guard rule "${printable(guard.rule, 80)}" of profile ` +
    `${printable(prompt.profile, 80)}): answer in the Kubecred window, or the page Kubecred opened in your browser; ` +
    `it is refused at ${until} if nobody answers`
  );
}

function localClockTime(epochMs: number): string {
  return new Date(epochMs).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}
