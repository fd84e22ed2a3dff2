/** Diagnostics. Callers pass names, codes and sizes; never a secret. */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

// Whatever a caller passes (a server's words, a request's path), one line stays small: the log
// sits on the user's disk and some of what reaches it comes from strangers.
const MAX_FIELD_CHARS = 1_000;

export function jsonLinesLogger(write: (line: string) => void): Logger {
  const log =
    (level: string) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      const bounded = Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, bound(value)]));
      write(`${JSON.stringify({ time: new Date().toISOString(), level, message: bound(message), ...bounded })}\n`);
    };
  return { info: log('info'), warn: log('warn'), error: log('error') };
}

/** A value as logged: itself when short, else the start of its text and how much was cut. */
function bound(value: unknown): unknown {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === undefined || text.length <= MAX_FIELD_CHARS) return value;
  return `${text.slice(0, MAX_FIELD_CHARS)}… (${text.length - MAX_FIELD_CHARS} more characters)`;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
