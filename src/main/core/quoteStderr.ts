const MAX_QUOTE = 400;

import { withoutTerminalControls } from '../../shared/printable.js';

// What a plugin may echo of a secret, redacted in this order:
// `password=...`, `"token": "..."`, `secret: ...`: the value of any secret-sounding key;
// (a key that ends in the secret word: `gke-gcloud-auth-plugin` is a program, not a secret)
const SECRET_PAIR =
  /\b([\w.-]*(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[-_]?key|private[-_]?key|access[-_]?key|credentials?|session(?:[-_]?id)?|cookie|authorization))("?\s*[:=]\s*"?)([^\s",;&]+)/gi;
// `secret "S3cr3t-Pa55"`, `password: 'correct horse'`: a quoted value right after a secret word
// (whole, or the last part of `client_secret`), spaces and all. The quote must follow at once:
// `secrets "db-creds" is forbidden` names a Kubernetes resource, and `no secret for profile
// "prod"` names a profile; both stay readable.
const QUOTED_SECRET =
  /\b((?:[\w.-]*[_.-])?(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[-_]?key|key|credentials?|cookie))("?\s*[:=]\s*|\s+)("[^"]*"|'[^']*')/gi;
// `https://user:pw123@idp.example.com`: a URL's userinfo with a password in it, up to the last
// `@` before the path. A bare `git@` is a login name and stays; an `@` in the path is no userinfo.
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#]*:[^\s/?#]*@/gi;
// `Bearer <token>`, `Basic <base64>`;
const AUTH_SCHEME = /\b(Bearer|Basic|Negotiate)\s+[A-Za-z0-9+/=_.~-]+/gi;
// and runs of token characters with a part that looks random: long, or mixing letters and
// digits (`3f9c2a7d1b8e4f60`, `AKIAIOSFODNN7EXAMPLE`, each part of a JWT or a base64 blob).
// Names and paths join short parts (`gke_proj-123456_us-central1-a_prod`, `/usr/lib/google-
// cloud-sdk/bin/gke-gcloud-auth-plugin`) and stay readable: they are what a user needs to see.
const TOKEN_RUN = /[A-Za-z0-9+/=_.-]{16,}/g;
const RUN_PART = /[-_./=]+/;
const RANDOM_PART = /^(?=.*\d)(?=.*[A-Za-z]).{9,}$|^.{24,}$/;
// A whole run of 30 or more mixing upper case, lower case and digits is a key even when its
// separators cut it into short parts (AWS secret keys carry "/" and "+"); an absolute path
// (a random temporary folder in it) is not one.
const MIXED_RUN = /^(?![/~])(?=.*\d)(?=.*[a-z])(?=.*[A-Z]).{30,}$/;

/**
 * Foreign text (a plugin's stderr) made fit for one line of an error: escapes and controls
 * gone, whitespace collapsed, anything that looks like a secret redacted. Escapes and controls
 * go first: one inside a secret would otherwise split it into runs too short to redact.
 */
export function redactForeignText(text: unknown): string {
  const clean = withoutTerminalControls(String(text ?? '').replace(/\s+/g, ' '))
    .replace(URL_USERINFO, '$1[redacted]@')
    .replace(AUTH_SCHEME, (_match, scheme: string) => `${scheme} [redacted]`)
    .replace(QUOTED_SECRET, (_match, key: string, separator: string, quoted: string) => {
      const quote = quoted.charAt(0);
      return `${key}${separator}${quote}[redacted]${quote}`;
    })
    .replace(SECRET_PAIR, (_match, key: string, separator: string) => `${key}${separator}[redacted]`);
  return withoutTokens(clean).trim();
}

/**
 * Kubecred's own text with anything token-shaped redacted: auth schemes, opaque runs, random
 * parts. Unlike redactForeignText it leaves `token: ...` alone, which Kubecred's messages say
 * of its own fields; for a net under messages that may carry a server's words (the audit trail).
 */
export function withoutTokens(text: string): string {
  return withoutTerminalControls(text)
    .replace(URL_USERINFO, '$1[redacted]@')
    .replace(AUTH_SCHEME, (_match, scheme: string) => `${scheme} [redacted]`)
    .replace(TOKEN_RUN, (run) =>
      MIXED_RUN.test(run) || run.split(RUN_PART).some((part) => RANDOM_PART.test(part)) ? '[redacted]' : run,
    );
}

/** The plugin's stderr, trimmed and redacted, as the tail of an error message. */
export function quoteStderr(stderr: unknown): string {
  const text = redactForeignText(stderr);
  if (!text) return '';
  const quoted = text.length > MAX_QUOTE ? `…${text.slice(-MAX_QUOTE)}` : text;
  return `: ${quoted}`;
}
