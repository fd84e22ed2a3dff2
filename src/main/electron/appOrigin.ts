/**
 * The app's windows load from one origin: the broker's loopback web UI,
 * `http://127.0.0.1:<port>`. These predicates decide where a window may navigate and which
 * links leave for the system browser.
 */

function parse(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/** Same scheme, host and port, and no credentials in the URL. */
export function isSameAppOrigin(url: string, appOrigin: string): boolean {
  const target = parse(url);
  const app = parse(appOrigin);
  if (!target || !app) return false;
  if (target.username !== '' || target.password !== '') return false;
  return (
    target.protocol === app.protocol &&
    target.hostname === app.hostname &&
    target.port === app.port &&
    target.hostname !== ''
  );
}

/** In-window navigation stays inside the app; everything else is refused. */
export function isAllowedNavigation(url: string, appOrigin: string): boolean {
  return isSameAppOrigin(url, appOrigin);
}

export type WindowOpenDecision =
  { readonly action: 'deny' } | { readonly action: 'deny'; readonly openExternally: string };

/**
 * No window ever opens another window. An https link (the OIDC "continue in your browser"
 * link, documentation) goes to the system browser; http only to loopback (an OIDC loopback
 * redirect); anything else (file:, javascript:, custom schemes) is dropped.
 */
export function windowOpenDecision(url: string): WindowOpenDecision {
  const target = parse(url);
  if (!target || target.username !== '' || target.password !== '') return { action: 'deny' };
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname);
  if (target.protocol === 'https:' || (target.protocol === 'http:' && loopback))
    return { action: 'deny', openExternally: target.href };
  return { action: 'deny' };
}
