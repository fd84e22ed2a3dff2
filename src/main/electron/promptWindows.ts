import type { PendingPrompt } from '../../shared/api/prompts.js';

/** The open questions (the broker's PromptQueue). */
export interface OpenPrompts {
  list(): PendingPrompt[];
  onChange(listener: () => void): () => void;
}

/** The prompt windows: one per open prompt. */
export interface PromptWindows {
  show(prompt: PendingPrompt): void;
  closed(promptId: string): void;
}

/**
 * Keeps one window per open prompt: opens a window when a prompt appears and closes it when
 * the prompt is answered, cancelled or times out. Change events also fire when a caller joins
 * an open prompt, so windows are matched by id, never opened per event. Returns the unsubscribe.
 */
export function mirrorPromptWindows(prompts: OpenPrompts, windows: PromptWindows): () => void {
  const shown = new Set<string>();
  const sync = () => {
    const open = prompts.list();
    const ids = new Set(open.map((p) => p.id));
    for (const id of [...shown].filter((id) => !ids.has(id))) {
      shown.delete(id);
      windows.closed(id);
    }
    for (const prompt of open.filter((p) => !shown.has(p.id))) {
      shown.add(prompt.id);
      windows.show(prompt);
    }
  };
  sync();
  return prompts.onChange(sync);
}
