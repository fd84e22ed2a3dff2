/**
 * "Something changed; read again": many changes in one turn of the event loop (twenty kubectl
 * calls served at once) reach each listener once, after the turn.
 */
export class ChangeSignal {
  private readonly listeners = new Set<() => void>();
  private pending = false;

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  notify(): void {
    if (this.pending) return;
    this.pending = true;
    setImmediate(() => {
      this.pending = false;
      for (const listener of [...this.listeners]) {
        try {
          listener();
        } catch {
          // A listener's failure is its own; the others still hear of the change.
        }
      }
    });
  }
}
