import type { OidcProfileConfig } from '../../../shared/config/schema.js';

/** Parameters the protocol or this login fixes; extraAuthParams cannot override them. */
const RESERVED = new Set([
  'client_id',
  'redirect_uri',
  'response_type',
  'response_mode',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'request',
  'request_uri',
]);

/**
 * The authorization request of the browser flow. OIDC Core 11 makes offline_access count only
 * with prompt=consent, so that is sent unless extraAuthParams chooses a prompt (an empty value
 * sends none, for issuers that would otherwise ask for consent on every login).
 */
export function authorizationParams(
  profile: OidcProfileConfig,
  fixed: { redirect_uri: string; state: string; nonce: string; code_challenge: string },
): Record<string, string> {
  const params: Record<string, string> = {};
  if (profile.scopes.includes('offline_access')) params.prompt = 'consent';
  Object.assign(params, extraParams(profile));
  if (params.prompt === '') delete params.prompt;
  return { ...params, scope: profile.scopes.join(' '), response_type: 'code', code_challenge_method: 'S256', ...fixed };
}

/** The device authorization request (RFC 8628 3.1): scope and the profile's extra parameters, no prompt. */
export function deviceAuthorizationParams(profile: OidcProfileConfig): Record<string, string> {
  const { prompt: _prompt, ...extra } = extraParams(profile);
  return { ...extra, scope: profile.scopes.join(' ') };
}

function extraParams(profile: OidcProfileConfig): Record<string, string> {
  return Object.fromEntries(Object.entries(profile.extraAuthParams).filter(([name]) => !RESERVED.has(name)));
}
