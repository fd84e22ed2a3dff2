import { z } from 'zod';
import { routeSuffix } from '../../platform/outboundRoute.js';
import { ProxyRouteError } from '../../platform/proxyTunnel.js';
import { BrokerError } from '../../core/brokerError.js';
import { describeDomain, describeScope, type KeystoneSettings } from './keystoneSettings.js';
import type { HttpAnswer } from './postJson.js';

/** What an error message may say about the attempt. The secret is here only to be redacted. */
export interface Attempt {
  readonly profile: string;
  readonly authUrl: string;
  readonly settings: KeystoneSettings;
  readonly secretSource: 'store' | 'form';
  readonly storeName: string;
  readonly secret: string;
}

const keystoneErrorBody = z.object({
  error: z.object({ message: z.string().optional(), title: z.string().optional() }),
});

/** Production Keystone says only this for every 401 (its SecurityError hides details unless insecure_debug). */
const GENERIC_401 = /^The request you have made requires authentication\.?$/;

/** Keystone's own message, cut short, one line, and with the secret blanked should it ever be echoed. */
export function keystoneMessage(body: string, secret: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const result = keystoneErrorBody.safeParse(parsed);
  const text = result.success ? (result.data.error.message ?? result.data.error.title) : undefined;
  if (text === undefined) return undefined;
  const redacted = secret.length > 0 ? text.split(secret).join('***') : text;
  const oneLine = redacted.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return oneLine.length > 300 ? `${oneLine.slice(0, 300)}…` : oneLine;
}

export function describeUser(settings: KeystoneSettings): string {
  if (settings.method === 'application-credential') {
    if (settings.applicationCredentialId !== undefined)
      return `application credential ${settings.applicationCredentialId}`;
    const owner = settings.userId !== undefined ? `user id ${settings.userId}` : `user "${settings.username ?? ''}"`;
    return `application credential "${settings.applicationCredentialName ?? ''}" of ${owner}`;
  }
  if (settings.userId !== undefined) return `user id ${settings.userId}`;
  return `user "${settings.username ?? ''}" in domain ${describeDomain(settings.userDomain)}`;
}

/** The names and ids of the requested scope, to tell a scope complaint from a user one. */
function scopeTerms(settings: KeystoneSettings): string[] {
  const scope = settings.scope;
  const domainTerms = (domain: { id: string } | { name: string } | undefined): string[] =>
    domain === undefined ? [] : ['id' in domain ? domain.id : domain.name];
  if (scope.kind === 'project') return 'id' in scope ? [scope.id] : [scope.name, ...domainTerms(scope.domain)];
  if (scope.kind === 'domain') return domainTerms(scope.domain);
  return [];
}

function isScopeComplaint(message: string, settings: KeystoneSettings): boolean {
  if (settings.method !== 'password' || settings.scope.kind === 'default') return false;
  const userDomain =
    settings.userDomain === undefined
      ? undefined
      : 'id' in settings.userDomain
        ? settings.userDomain.id
        : settings.userDomain.name;
  if (scopeTerms(settings).some((term) => message.includes(term))) return true;
  return (
    /\bproject\b/i.test(message) ||
    (/\bdomain\b/i.test(message) && (userDomain === undefined || !message.includes(userDomain)))
  );
}

function scopeError(attempt: Attempt, status: number, message: string | undefined): BrokerError {
  return new BrokerError(
    'provider-failed',
    `Keystone at ${attempt.authUrl} refused ${describeScope(attempt.settings.scope)} for ${describeUser(attempt.settings)} (HTTP ${status})${message ? `: ${message}` : ''}`,
    'check the project or domain of the profile (projectName/projectId/projectDomainName, domainName; or OS_PROJECT_*, OS_DOMAIN_*) and that the user has a role on it',
  );
}

function credentialsError(attempt: Attempt, message: string | undefined): BrokerError {
  const { settings, profile } = attempt;
  const isPassword = settings.method === 'password';
  const what = isPassword ? 'password' : 'secret';
  const field = isPassword ? 'password' : 'application-credential-secret';
  const source =
    attempt.secretSource === 'store' ? `the ${what} stored in the ${attempt.storeName}` : `the ${what} given`;
  // Production Keystone answers a wrong password and a missing role on the project with the
  // same bare 401, so both causes are named: guessing would send the user the wrong way.
  const causes = isPassword
    ? settings.scope.kind === 'default'
      ? `${source} is wrong, or the user is unknown or disabled`
      : `${source} is wrong, or the user has no role on ${describeScope(settings.scope)} (Keystone does not say which)`
    : `${source} is wrong, or the application credential expired or was deleted`;
  const detail = message && !GENERIC_401.test(message) ? `. Keystone said: ${message}` : '';
  const noRetry = `Kubecred never retries a refused ${what}, so it cannot lock the account`;
  const hint =
    attempt.secretSource === 'store'
      ? `if the ${what} changed, replace it with: kubecred secret set ${profile} ${field}   (reads stdin). ${noRetry}`
      : `check the ${isPassword ? 'user name, its domain and the password' : 'application credential and its secret'} and try again. ${noRetry}`;
  return new BrokerError(
    'provider-failed',
    `Keystone at ${attempt.authUrl} refused the login of ${describeUser(settings)} (profile "${profile}"): ${causes}${detail}`,
    hint,
  );
}

/** A non-2xx answer to POST /auth/tokens, as an error that says what to fix. */
export function refusal(answer: HttpAnswer, attempt: Attempt): BrokerError {
  const { status } = answer;
  const message = keystoneMessage(answer.body, attempt.secret);
  const where = `Keystone at ${attempt.authUrl}`;
  if (status === 401 && answer.header('openstack-auth-receipt') !== undefined) {
    return new BrokerError(
      'provider-failed',
      `${where} wants more than one authentication method (multi-factor) for ${describeUser(attempt.settings)}`,
      'Kubecred speaks password and application-credential only; create an application credential and use method: application-credential',
    );
  }
  if (status === 401) {
    if (message && !GENERIC_401.test(message) && isScopeComplaint(message, attempt.settings))
      return scopeError(attempt, status, message);
    return credentialsError(attempt, message);
  }
  if (status === 403) return scopeError(attempt, status, message);
  if (status === 404) {
    if (message && /application credential/i.test(message)) {
      return new BrokerError(
        'provider-failed',
        `${where} has no ${describeUser(attempt.settings)}: ${message}`,
        'check applicationCredentialId (OS_APPLICATION_CREDENTIAL_ID); it may have been deleted',
      );
    }
    if (message && isScopeComplaint(message, attempt.settings)) return scopeError(attempt, status, message);
    if (message)
      return new BrokerError(
        'provider-failed',
        `${where} answered 404: ${message}`,
        "check the profile's Keystone settings",
      );
    return new BrokerError(
      'provider-failed',
      `found no Keystone v3 API at ${attempt.authUrl} (POST auth/tokens gave HTTP 404)`,
      'authUrl must be the Identity v3 endpoint, e.g. https://keystone.example.com:5000/v3',
    );
  }
  if (status === 400) {
    return new BrokerError(
      'provider-failed',
      `${where} rejected the token request as malformed${message ? `: ${message}` : ''}`,
      "check the profile's Keystone settings (user, domains, project)",
    );
  }
  if (status >= 300 && status < 400) {
    return new BrokerError(
      'provider-failed',
      `${where} redirected the token request (HTTP ${status}) to ${answer.header('location') ?? 'nowhere'}`,
      'set authUrl to the v3 endpoint it redirects to',
    );
  }
  if (status >= 500) {
    return new BrokerError(
      'provider-failed',
      `${where} failed with HTTP ${status}${message ? `: ${message}` : ''}`,
      "try again later; if it persists, ask the cloud's operators",
    );
  }
  return new BrokerError(
    'provider-failed',
    `${where} answered the token request with HTTP ${status}${message ? `: ${message}` : ''}`,
    'check authUrl: it must be the Identity v3 endpoint',
  );
}

/** A 2xx answer that is not a Keystone token. */
export function notAToken(attempt: Attempt, what: string): BrokerError {
  return new BrokerError(
    'provider-failed',
    `Keystone at ${attempt.authUrl} answered, but ${what}`,
    'check that authUrl is the Identity v3 endpoint and not a proxy or login page',
  );
}

function errorCode(error: unknown): string | undefined {
  const own = (error as { code?: unknown } | undefined)?.code;
  if (typeof own === 'string') return own;
  // fetch wraps the socket's error in `cause`.
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return typeof cause === 'string' ? cause : undefined;
}

/** A failure before any answer: DNS, connection, TLS, timeout, cancellation. */
export function transportError(error: unknown, authUrl: string, caFile: string | undefined): BrokerError {
  // On the way through a proxy: its own words name the proxy and the setting to change.
  if (error instanceof ProxyRouteError)
    return new BrokerError(
      'provider-failed',
      `the request to Keystone at ${authUrl} failed: ${error.message}`,
      error.hint,
    );
  const code = errorCode(error);
  const name = (error as { name?: string } | undefined)?.name;
  const host = new URL(authUrl).host;
  if (name === 'AbortError' || code === 'ABORT_ERR')
    return new BrokerError('provider-failed', `the request to Keystone at ${authUrl} was cancelled`, 'try again');
  if (name === 'TimeoutError' || code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new BrokerError(
      'provider-failed',
      `Keystone at ${authUrl} did not answer in time`,
      `check that ${host} is reachable from this machine (VPN, proxy, firewall)`,
    );
  }
  if (code === 'ECONNREFUSED')
    return new BrokerError(
      'provider-failed',
      `could not connect to Keystone at ${authUrl}: connection refused${routeSuffix(error)}`,
      `check authUrl and that Keystone listens on ${host}`,
    );
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new BrokerError(
      'provider-failed',
      `could not resolve the host of Keystone at ${authUrl}${routeSuffix(error)}`,
      'check authUrl, and the network or VPN',
    );
  if (code && /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/.test(code)) {
    return new BrokerError(
      'provider-failed',
      `could not verify the TLS certificate of Keystone at ${authUrl} (${code})`,
      caFile !== undefined
        ? `the CA bundle ${caFile} does not vouch for ${host}; use the bundle of the CA that signed Keystone's certificate`
        : "set caFile in the profile (or OS_CACERT) to the PEM bundle of the CA that signed Keystone's certificate",
    );
  }
  if (code === 'KUBECRED_TOO_LARGE')
    return new BrokerError(
      'provider-failed',
      `Keystone at ${authUrl} sent an answer too large to be a token`,
      'check that authUrl is the Identity v3 endpoint',
    );
  return new BrokerError(
    'provider-failed',
    `the request to Keystone at ${authUrl} failed${code ? ` (${code})` : ''}: ${(error as Error)?.message ?? String(error)}`,
    `check authUrl and that ${host} is reachable`,
  );
}
