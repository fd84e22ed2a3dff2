/**
 * oidc-provider prints NOTICE and WARNING lines to the console (development-only interactions,
 * its supported Node versions): true for a production issuer, noise in the demo's terminal,
 * where the lines to try must stand out. They go to the demo's log instead, for as long as the
 * demo runs; everything else still reaches the console. Returns the function that restores it.
 */
export function divertIssuerNotices(log: (line: string) => void): () => void {
  const original = { info: console.info, warn: console.warn };
  const divert =
    (keep: (...args: unknown[]) => void) =>
    (...args: unknown[]) => {
      const first = String(args[0] ?? '');
      // The library colours its lines on a terminal: match past the escape code.
      if (/^(\x1b\[[0-9;]*m)?oidc-provider (NOTICE|WARNING):/.test(first)) log(first.replace(/\x1b\[[0-9;]*m/g, ''));
      else keep(...args);
    };
  console.info = divert(original.info);
  console.warn = divert(original.warn);
  return () => {
    console.info = original.info;
    console.warn = original.warn;
  };
}
