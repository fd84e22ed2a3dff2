const MAX_QUOTE = 400;

import { withoutTerminalControls } from '../../../shared/printable.js';

// What a plugin may echo of a secret, redacted in this order:
// `password=...`, `"token": "..."`, `secret: ...`: the value of any secret-sounding key;
// (a key that ends in the secret word: `gke-gcloud-auth-plugin` is a program, not a secret)
const SECRET_PAIR = /\b([\w.-]*(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[-_]?key|private[-_]?key|credentials?|session(?:[-_]?id)?|cookie|authorization))("?\s*[:=]\s*"?)([^\s",;&]+)/gi;
// `Bearer <token>`, `Basic <base64>`;
const AUTH_SCHEME = /\b(Bearer|Basic|Negotiate)\s+[A-Za-z0-9+/=_.~-]+/gi;
// long opaque runs (JWTs, keys, base64 blobs), and shorter ones that mix letters and digits
// the way random tokens do (hex digests, API keys), which ordinary words never do.
const OPAQUE_RUN = /[A-Za-z0-9+/=_.-]{40,}/g;
const TOKEN_LIKE = /\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{16,}\b/g;

/**
 * Foreign text (a plugin's stderr) made fit for one line of an error: escapes and controls
 * gone, whitespace collapsed, anything that looks like a secret redacted. Escapes and controls
 * go first: one inside a secret would otherwise split it into runs too short to redact.
 */
export function redactForeignText(text: unknown): string {
  return withoutTerminalControls(String(text ?? '').replace(/\s+/g, ' '))
    .replace(AUTH_SCHEME, (_match, scheme: string) => `${scheme} [redacted]`)
    .replace(SECRET_PAIR, (_match, key: string, separator: string) => `${key}${separator}[redacted]`)
    .replace(OPAQUE_RUN, '[redacted]')
    .replace(TOKEN_LIKE, '[redacted]')
    .trim();
}

/** The plugin's stderr, trimmed and redacted, as the tail of an error message. */
export function quoteStderr(stderr: unknown): string {
  const text = redactForeignText(stderr);
  if (!text) return '';
  const quoted = text.length > MAX_QUOTE ? `…${text.slice(-MAX_QUOTE)}` : text;
  return `: ${quoted}`;
}
