/** Diagnostics. Callers pass names, codes and sizes; never a secret. */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export function jsonLinesLogger(write: (line: string) => void): Logger {
  const log =
    (level: string) =>
    (message: string, fields: Record<string, unknown> = {}) =>
      write(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`);
  return { info: log('info'), warn: log('warn'), error: log('error') };
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
