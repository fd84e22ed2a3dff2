import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export const SESSION_COOKIE = 'kubecred-webui';

/** A refusal, with the status to answer and why (for the log and the body, never a secret). */
export interface Refusal {
  readonly status: number;
  readonly reason: string;
}

/**
 * DNS rebinding and cross-site requests: a page on another site can make the browser send
 * requests to 127.0.0.1, but it cannot make them carry our Host or our Origin. So any Host
 * but 127.0.0.1:<port> and any Origin but ours is refused before anything else runs.
 */
export function checkOrigin(headers: IncomingHttpHeaders, port: number): Refusal | null {
  const self = `127.0.0.1:${port}`;
  if (headers.host !== self) return { status: 421, reason: 'wrong Host header' };
  const origin = headers.origin;
  if (origin !== undefined && origin !== `http://${self}`) return { status: 403, reason: 'foreign Origin' };
  // Browsers label cross-site requests; refuse them even where Origin is missing (some GETs).
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return { status: 403, reason: 'cross-site request' };
  return null;
}

/** Reads one cookie's value from a Cookie header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Compares secrets in constant time (hashing first makes the lengths equal). */
export function sameSecret(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/**
 * The one-time token from the link, and the sessions it was traded for. The token works
 * once: a link left in the browser history or a terminal's scrollback opens nothing later.
 */
export class SessionKeeper {
  private token: string | null = randomBytes(24).toString('base64url');
  private readonly sessions = new Set<string>();

  /** The token for the link; null after it was used. */
  get linkToken(): string | null {
    return this.token;
  }

  /** A fresh one-time token for a new link (`kubecred ui`); any unused older one stops working. */
  newLinkToken(): string {
    this.token = randomBytes(24).toString('base64url');
    return this.token;
  }

  /** Trades the link's token for a session id; undefined when the token is wrong or spent. */
  exchange(token: string): string | undefined {
    if (this.token === null || !sameSecret(token, this.token)) return undefined;
    this.token = null;
    const session = randomBytes(32).toString('base64url');
    this.sessions.add(session);
    return session;
  }

  /** Whether the request carries a live session cookie. */
  admits(cookieHeader: string | undefined): boolean {
    const value = readCookie(cookieHeader, SESSION_COOKIE);
    if (!value) return false;
    for (const session of this.sessions) if (sameSecret(value, session)) return true;
    return false;
  }

  cookie(session: string): string {
    return `${SESSION_COOKIE}=${session}; HttpOnly; SameSite=Strict; Path=/`;
  }
}

/** Headers on every answer: nothing cached, nothing framed, nothing loaded from elsewhere. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};
