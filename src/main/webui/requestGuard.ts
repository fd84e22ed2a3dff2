import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { buildCsp } from './contentSecurityPolicy.js';

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
export function checkOrigin(
  headers: IncomingHttpHeaders,
  port: number,
  target: RequestTarget = { method: 'GET', path: '/' },
): Refusal | null {
  const self = `127.0.0.1:${port}`;
  if (headers.host !== self) return { status: 421, reason: 'wrong Host header' };
  const origin = headers.origin;
  if (origin !== undefined && origin !== `http://${self}`) return { status: 403, reason: 'foreign Origin' };
  // Browsers label cross-site requests; refuse them even where Origin is missing (some GETs).
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none' && !isShellNavigation(headers, target))
    return { status: 403, reason: 'cross-site request' };
  return null;
}

/** What a request asks for: its method and the path of its URL. */
export interface RequestTarget {
  readonly method: string;
  readonly path: string;
}

/** The paths of the app's page itself: the shell that holds no secret and asks for none. */
const SHELL_PATHS = new Set(['/', '/index.html']);

/**
 * Opening the app's page, top level, from anywhere: the system browser is handed a file://
 * redirect page (the link's token must stay off every command line), and Chromium labels the
 * navigation that leaves it cross-site. The shell holds no secret; the link's token sits in the
 * fragment, which no request carries, and the page trades it with a same-origin fetch. So
 * another site gains nothing here that it could not get by loading the page itself, and every
 * API call, subresource and frame from another site is still refused.
 */
function isShellNavigation(headers: IncomingHttpHeaders, target: RequestTarget): boolean {
  return (
    (target.method === 'GET' || target.method === 'HEAD') &&
    SHELL_PATHS.has(target.path) &&
    headers['sec-fetch-mode'] === 'navigate' &&
    headers['sec-fetch-dest'] === 'document'
  );
}

/** Compares secrets in constant time (hashing first makes the lengths equal). */
export function sameSecret(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** Headers on every answer: nothing cached, nothing framed, nothing loaded from elsewhere. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': buildCsp(),
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};
