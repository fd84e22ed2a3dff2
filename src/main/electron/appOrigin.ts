/**
 * The app's windows load from one origin (APP_ORIGIN, a privileged custom scheme served from
 * the built renderer). These predicates decide what may talk to the main process, where a
 * window may navigate, and which links leave for the system browser.
 */
export const APP_SCHEME = 'kubecred-app';
export const APP_ORIGIN = `${APP_SCHEME}://ui`;

function parse(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/**
 * Same scheme, host and port, and no credentials in the URL. (URL.origin is "null" for custom
 * schemes, so the parts are compared one by one.)
 */
export function isSameAppOrigin(url: string, appOrigin: string): boolean {
  const target = parse(url);
  const app = parse(appOrigin);
  if (!target || !app) return false;
  if (target.username !== '' || target.password !== '') return false;
  return target.protocol === app.protocol && target.hostname === app.hostname && target.port === app.port && target.hostname !== '';
}

/** An IPC message is trusted only from a frame showing the app itself (never a remote page or a subframe of one). */
export function isTrustedSender(frameUrl: string | undefined, appOrigin: string): boolean {
  return frameUrl !== undefined && isSameAppOrigin(frameUrl, appOrigin);
}

/** In-window navigation stays inside the app; everything else is refused. */
export function isAllowedNavigation(url: string, appOrigin: string): boolean {
  return isSameAppOrigin(url, appOrigin);
}

export type WindowOpenDecision = { readonly action: 'deny' } | { readonly action: 'deny'; readonly openExternally: string };

/**
 * No window ever opens another window. An https link (the OIDC "continue in your browser"
 * link, documentation) goes to the system browser; http only to loopback (an OIDC loopback
 * redirect); anything else (file:, javascript:, custom schemes) is dropped.
 */
export function windowOpenDecision(url: string): WindowOpenDecision {
  const target = parse(url);
  if (!target || target.username !== '' || target.password !== '') return { action: 'deny' };
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname);
  if (target.protocol === 'https:' || (target.protocol === 'http:' && loopback)) return { action: 'deny', openExternally: target.href };
  return { action: 'deny' };
}
