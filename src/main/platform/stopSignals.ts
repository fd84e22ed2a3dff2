const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Resolves on the first SIGINT, SIGTERM or SIGHUP. The next signal is absorbed: one Ctrl-C often
 * arrives twice (the terminal signals the whole group and npm forwards its own copy), and a
 * second delivery must not cut the cleanup short and leave the socket and lock behind. A third
 * means the user insists: exit at once.
 */
export function untilStopSignal(
  onForce: (signal: NodeJS.Signals) => void = () => process.exit(130),
): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let received = 0;
    for (const signal of STOP_SIGNALS) {
      process.on(signal, () => {
        received++;
        if (received === 1) resolve(signal);
        else if (received >= 3) onForce(signal);
      });
    }
  });
}
