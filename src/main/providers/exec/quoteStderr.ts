const MAX_QUOTE = 400;

// Long opaque runs (JWTs, keys, base64 blobs) are redacted: a plugin may echo a secret.
const OPAQUE_RUN = /[A-Za-z0-9+/=_.-]{40,}/g;

/** The plugin's stderr, trimmed and redacted, as the tail of an error message. */
export function quoteStderr(stderr: unknown): string {
  const text = String(stderr ?? '').replace(OPAQUE_RUN, '[redacted]').replace(/\s+/g, ' ').trim();
  if (!text) return '';
  const quoted = text.length > MAX_QUOTE ? `…${text.slice(-MAX_QUOTE)}` : text;
  return `: ${quoted}`;
}
