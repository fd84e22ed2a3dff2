import { printable } from '../../../shared/printable.js';
/** Where the loopback server expects the browser (RFC 8252 7.3); the port is added at run time. */
export const REDIRECT_PATH = '/callback';

export type RedirectOutcome =
  /** Another path or method (favicon, a probe): 404, keep waiting. */
  | { readonly kind: 'not-ours' }
  /** Our path but not our login (a stale tab, a forged request): 400, keep waiting. */
  | { readonly kind: 'wrong-state' }
  /** The authorization response; `url` is what openid-client checks and redeems. */
  | { readonly kind: 'code'; readonly url: URL }
  /** The issuer refused (access_denied, ...), for this login. */
  | { readonly kind: 'error'; readonly error: string; readonly description?: string };

/**
 * Classifies a request that reached the loopback redirect server. Only a response that
 * carries this login's state can end the login, so a stray or hostile request cannot.
 */
export function parseRedirect(
  method: string | undefined,
  rawUrl: string | undefined,
  redirectUri: URL,
  expectedState: string,
): RedirectOutcome {
  if (method !== 'GET' || rawUrl === undefined) return { kind: 'not-ours' };
  const url = new URL(rawUrl, redirectUri);
  if (url.pathname !== redirectUri.pathname) return { kind: 'not-ours' };
  const params = url.searchParams;
  if (params.get('state') !== expectedState) return { kind: 'wrong-state' };
  const error = params.get('error');
  if (error !== null) {
    const description = params.get('error_description');
    return description
      ? { kind: 'error', error: printable(error, 200), description: printable(description, 200) }
      : { kind: 'error', error: printable(error, 200) };
  }
  if (!params.get('code')) return { kind: 'wrong-state' };
  return { kind: 'code', url: new URL(`${redirectUri.origin}${redirectUri.pathname}${url.search}`) };
}
