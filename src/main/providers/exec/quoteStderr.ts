const MAX_QUOTE = 400;

// Long opaque runs (JWTs, keys, base64 blobs) are redacted: a plugin may echo a secret.
const OPAQUE_RUN = /[A-Za-z0-9+/=_.-]{40,}/g;

// A plugin's colours and cursor moves must not reach the user's terminal through our message.
const TERMINAL_ESCAPE = /\u001b(\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(\u0007|\u001b\\)?|.)/g;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** The plugin's stderr, trimmed and redacted, as the tail of an error message. */
export function quoteStderr(stderr: unknown): string {
  // Escapes and control characters go first: one inside a secret would otherwise split it into
  // runs too short to redact, and removing it afterwards would join the secret up again.
  const text = String(stderr ?? '')
    .replace(TERMINAL_ESCAPE, '')
    .replace(/\s+/g, ' ')
    .replace(CONTROL, '')
    .replace(OPAQUE_RUN, '[redacted]')
    .trim();
  if (!text) return '';
  const quoted = text.length > MAX_QUOTE ? `…${text.slice(-MAX_QUOTE)}` : text;
  return `: ${quoted}`;
}
