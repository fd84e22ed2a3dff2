import * as oidc from 'openid-client';
import { codeWithMeaning, UNKNOWN_ROOT_CODES } from '../../platform/networkWords.js';
import { routeSuffix } from '../../platform/outboundRoute.js';
import { ProxyRouteError } from '../../platform/proxyTunnel.js';
import { BrokerError } from '../../core/brokerError.js';
import { printable } from '../../../shared/printable.js';

export interface FailureContext {
  readonly profile: string;
  readonly issuer: string;
  /** What was under way, e.g. "refreshing the ID token". */
  readonly doing: string;
}

// Text an issuer chose goes into one-line messages: bounded.
const ISSUER_TEXT_MAX = 200;

const TLS_TRUST_CODES = new Set([...UNKNOWN_ROOT_CODES, 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID']);

// What a user can do about it is the same for every network failure; doctor retries from this shell.
const NETWORK_HINT =
  'check the issuer URL, the network and any proxy; kubecred doctor tries the issuer from this shell';

/** An OAuth error code the issuer sent back (token endpoint or authorization response), if any. */
export function oauthErrorCode(error: unknown): string | undefined {
  if (error instanceof oidc.ResponseBodyError || error instanceof oidc.AuthorizationResponseError) return error.error;
  return undefined;
}

/** Errors of the token endpoint that judge the client or the issuer, not the refresh token it was sent. */
const NOT_ABOUT_THE_TOKEN = new Set(['invalid_client', 'temporarily_unavailable', 'server_error', 'slow_down']);

/**
 * The token endpoint turned the refresh token down: an OAuth error answer (HTTP 4xx) about the
 * token, whichever code the issuer picks for it (invalid_grant by the RFC; Dex answers
 * invalid_request for an expired or unknown one). Such a token never works again: it is dropped
 * and a login follows. A network failure, a 5xx or a refused client keeps it: the token may be
 * fine.
 */
export function refreshTokenRefused(error: unknown): boolean {
  if (!(error instanceof oidc.ResponseBodyError)) return false;
  return error.status >= 400 && error.status < 500 && !NOT_ABOUT_THE_TOKEN.has(error.error);
}

/**
 * Turns what openid-client, the network or the issuer threw into a BrokerError. Only the
 * issuer's error code and description, HTTP status and library codes are quoted: causes can
 * hold response bodies, which can hold tokens.
 */
export function oidcFailure(error: unknown, where: FailureContext): BrokerError {
  if (error instanceof BrokerError) return error;
  const failed = `${where.doing} for profile "${where.profile}" failed`;
  // The proxy's own words: which proxy, from which setting, what it answered, what to change.
  const onTheWay = proxyRouteError(error);
  if (onTheWay) return new BrokerError('provider-failed', `${failed}: ${onTheWay.message}`, onTheWay.hint);
  if (error instanceof oidc.ResponseBodyError || error instanceof oidc.AuthorizationResponseError) {
    const description = error.error_description ? `: ${printable(error.error_description, ISSUER_TEXT_MAX)}` : '';
    const status = error instanceof oidc.ResponseBodyError ? ` (HTTP ${error.status})` : '';
    return new BrokerError(
      'provider-failed',
      `${failed}: the issuer answered ${printable(error.error, 60)}${description}${status}`,
      hintFor(error.error, where),
    );
  }
  if (error instanceof oidc.WWWAuthenticateChallengeError) {
    const challenge = error.cause[0];
    const code = challenge?.parameters.error;
    return new BrokerError(
      'provider-failed',
      `${failed}: the issuer answered HTTP ${error.status}${code ? ` (${printable(code, 60)})` : ''}`,
      hintFor(code ?? '', where),
    );
  }
  const network = networkCode(error);
  if (network && TLS_TRUST_CODES.has(network)) {
    return new BrokerError(
      'provider-failed',
      `${failed}: the TLS certificate of ${where.issuer} is not trusted (${network})`,
      "set caFile in the profile to the PEM bundle of the CA that signs the issuer's certificate",
    );
  }
  if (network) {
    return new BrokerError(
      'provider-failed',
      `${failed}: cannot reach ${where.issuer} (${codeWithMeaning(network)})${routeSuffix(error)}`,
      NETWORK_HINT,
    );
  }
  if (isAbort(error)) {
    return new BrokerError(
      'provider-failed',
      `${failed}: ${where.issuer} did not answer in time`,
      'check the network path to the issuer and try again',
    );
  }
  if (error instanceof oidc.ClientError) {
    const status = error.cause instanceof Response ? ` (HTTP ${error.cause.status})` : '';
    return new BrokerError(
      'provider-failed',
      `${failed}: ${printable(error.message, ISSUER_TEXT_MAX)}${status}${error.code ? ` [${error.code}]` : ''}`,
      clientErrorHint(error.code, where),
    );
  }
  const cause = innermostCause(error);
  return new BrokerError(
    'provider-failed',
    `${failed}: ${printable((error as Error)?.message ?? String(error), ISSUER_TEXT_MAX)}${cause ? ` (${printable(cause, 120)})` : ''}`,
    'check the issuer URL and clientId; kubecred doctor checks the issuer too',
  );
}

function proxyRouteError(error: unknown): ProxyRouteError | undefined {
  const seen = new Set<unknown>();
  for (let current = error; current && typeof current === 'object' && !seen.has(current);) {
    if (current instanceof ProxyRouteError) return current;
    seen.add(current);
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * What the network layer said under a bare "fetch failed" (a refused or blocked port, a name
 * that does not resolve): the last message in the cause chain, when it says something else.
 */
function innermostCause(error: unknown): string | undefined {
  const seen = new Set<unknown>([error]);
  let current = (error as { cause?: unknown })?.cause;
  let message: string | undefined;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const text = (current as { message?: unknown }).message;
    if (typeof text === 'string' && text.trim()) message = text.trim();
    current = (current as { cause?: unknown }).cause;
  }
  return message && message !== (error as Error)?.message ? message : undefined;
}

function hintFor(oauthError: string, where: FailureContext): string {
  switch (oauthError) {
    case 'invalid_grant':
      return `run: kubecred login ${where.profile}`;
    case 'invalid_client':
    case 'unauthorized_client':
      return `check clientId and that the client allows this grant at the issuer; a confidential client needs: kubecred secret set ${where.profile} client-secret`;
    case 'invalid_scope':
      return 'check scopes in the profile: the issuer refused one of them';
    case 'access_denied':
      return `sign in again and allow the access: kubecred login ${where.profile}`;
    default:
      return "see the issuer's logs for the details of the error";
  }
}

function clientErrorHint(code: string | undefined, where: FailureContext): string {
  if (code === 'OAUTH_HTTP_REQUEST_FORBIDDEN') return 'the issuer and all of its endpoints must use https';
  if (code === 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED')
    return `the issuer's discovery document must name exactly ${where.issuer}: check issuer in the profile (trailing slash, path)`;
  if (code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' || code === 'OAUTH_RESPONSE_IS_NOT_JSON')
    return `check that ${where.issuer} is an OIDC issuer: ${where.issuer.replace(/\/$/, '')}/.well-known/openid-configuration must answer JSON`;
  return `check the issuer's configuration; run: kubecred login ${where.profile}`;
}

/** A socket or TLS failure's code (ECONNREFUSED, SELF_SIGNED_CERT_IN_CHAIN, ...), wherever fetch nested it. */
function networkCode(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (TLS_TRUST_CODES.has(code) || /^(E[A-Z]+|EAI_[A-Z]+|UND_ERR_[A-Z_]+)$/.test(code)))
      return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function isAbort(error: unknown): boolean {
  const name = (error as { name?: unknown })?.name;
  return name === 'AbortError' || name === 'TimeoutError';
}
