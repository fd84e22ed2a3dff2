import type { LoginPrompt } from '../core/uiPorts.js';

/**
 * Logins waiting on the user (a browser page, a device code), so every UI can show them:
 * `kubecred login` prints them, the tray and the web UI list them.
 */
export class InteractionBoard {
  private readonly pending = new Map<string, LoginPrompt>();
  private readonly listeners = new Set<() => void>();

  show(prompt: LoginPrompt, signal: AbortSignal): void {
    if (signal.aborted) return;
    this.pending.set(prompt.profile, prompt);
    this.changed();
    signal.addEventListener(
      'abort',
      () => {
        if (this.pending.get(prompt.profile) === prompt) this.pending.delete(prompt.profile);
        this.changed();
      },
      { once: true },
    );
  }

  list(): LoginPrompt[] {
    return [...this.pending.values()];
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}
