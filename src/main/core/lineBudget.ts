/**
 * At most `perWindow` log lines per key in each window. Anything a stranger can trigger (a
 * refused request, a proxy diagnostic) goes through one, so nobody can fill the disk through
 * the broker's log; what was dropped is still counted, and said on the key's next line.
 */
export class LineBudget {
  private readonly windows = new Map<string, { start: number; used: number; dropped: number }>();

  constructor(
    private readonly now: () => number,
    private readonly perWindow = 1,
    private readonly windowMs = 60_000,
  ) {}

  /** undefined: drop this line. Otherwise log it, with the number of lines dropped before it. */
  admit(key: string): number | undefined {
    const time = this.now();
    const window = this.windows.get(key);
    if (!window || time - window.start >= this.windowMs) {
      this.windows.set(key, { start: time, used: 1, dropped: 0 });
      return window?.dropped ?? 0;
    }
    if (window.used < this.perWindow) {
      window.used++;
      return 0;
    }
    window.dropped++;
    return undefined;
  }
}
