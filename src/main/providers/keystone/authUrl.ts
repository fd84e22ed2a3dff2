import { BrokerError } from '../../core/brokerError.js';

/**
 * The Identity v3 endpoint for an auth URL as users write it. client-keystone-auth accepts
 * both https://keystone:5000/v3 and https://keystone:5000 (gophercloud discovers the
 * version), so both are accepted here; instead of a discovery round trip on every login,
 * a URL that does not end in /v3 gets /v3 appended. A v2.0 URL is refused: v2.0 tokens
 * are gone from Keystone since Queens.
 */
export function v3AuthUrl(raw: string, profile: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new BrokerError(
      'config-invalid',
      `profile "${profile}": the Keystone auth URL ${JSON.stringify(raw)} is not a URL`,
      'use the v3 endpoint, e.g. https://keystone.example.com:5000/v3',
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new BrokerError(
      'config-invalid',
      `profile "${profile}": the Keystone auth URL must be http or https, not ${url.protocol}`,
      'use the v3 endpoint, e.g. https://keystone.example.com:5000/v3',
    );
  }
  if (url.username || url.password) {
    // Never echo it: the user part may hold a password.
    throw new BrokerError(
      'config-invalid',
      `profile "${profile}": the Keystone auth URL carries a user name or password`,
      `remove it from the URL; store the password with: kubecred secret set ${profile} password`,
    );
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (/\/v2(\.0)?$/.test(path)) {
    throw new BrokerError(
      'config-invalid',
      `profile "${profile}": ${url.origin}${path} is a Keystone v2.0 endpoint`,
      'Kubecred speaks Identity v3; use the /v3 endpoint of the same Keystone',
    );
  }
  url.pathname = /\/v3$/.test(path) ? path : `${path}/v3`;
  url.search = '';
  url.hash = '';
  return url.toString();
}
