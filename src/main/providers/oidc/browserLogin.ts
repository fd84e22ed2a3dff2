import * as oidc from 'openid-client';
import type { Credential } from '../../../shared/credential.js';
import { formatRemaining } from '../../../shared/duration.js';
import { BrokerError } from '../../core/brokerError.js';
import { authorizationParams } from './authorizationParams.js';
import { within } from './deadline.js';
import type { LoginFlowOptions } from './loginFlow.js';
import { startLoopbackServer, type AuthorizationResponse } from './loopbackServer.js';
import { oidcFailure } from './oidcErrors.js';
import { failedPage, signedInPage } from './redirectPage.js';

export interface BrowserLoginOptions extends LoginFlowOptions {
  readonly timeoutMs: number;
  /** When the UI opens no browser: show the URL and wait anyway, or stop so the caller can choose. */
  readonly withoutBrowser: 'show-url' | 'give-up';
}

/**
 * Authorization code + PKCE + state + nonce in the system browser, redirected to a loopback
 * server on 127.0.0.1 (RFC 8252). 'no-browser' when the UI opened none and we were told to give up.
 */
export async function browserLogin(options: BrowserLoginOptions): Promise<Credential | 'no-browser'> {
  const { config, profile, ui, signal } = options;
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const verifier = oidc.randomPKCECodeVerifier();
  const server = await startLoopbackServer(profile.redirectPort, state, profile.name);
  const shown = new AbortController();
  try {
    const params = authorizationParams(profile, {
      redirect_uri: server.redirectUri.href,
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    });
    const url = oidc.buildAuthorizationUrl(config, params).href;
    const opened = await ui.openBrowser(url);
    if (!opened && options.withoutBrowser === 'give-up') return 'no-browser';
    ui.showLogin({ profile: profile.name, kind: 'browser', url }, shown.signal);
    const arrival = await within(server.arrival, signal, options.timeoutMs, () =>
      timedOut(profile.name, options.timeoutMs),
    );
    try {
      const credential = await redeem(options, arrival.response, { state, nonce, verifier });
      arrival.respond(signedInPage(profile.name));
      return credential;
    } catch (error) {
      arrival.respond(
        failedPage(profile.name, error instanceof BrokerError ? error.message : 'The sign-in could not be completed.'),
      );
      throw error;
    }
  } finally {
    shown.abort();
    await server.close();
  }
}

async function redeem(
  options: LoginFlowOptions,
  response: AuthorizationResponse,
  checks: { state: string; nonce: string; verifier: string },
): Promise<Credential> {
  const { profile } = options;
  if (response.kind === 'error') {
    const detail = `${response.error}${response.description ? `: ${response.description}` : ''}`;
    const refused = response.error === 'access_denied' ? 'was refused at the issuer' : 'failed at the issuer';
    throw new BrokerError(
      'provider-failed',
      `the sign-in for profile "${profile.name}" ${refused} (${detail})`,
      `run: kubecred login ${profile.name} to try again`,
    );
  }
  let tokens;
  try {
    tokens = await oidc.authorizationCodeGrant(options.config, response.url, {
      pkceCodeVerifier: checks.verifier,
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      idTokenExpected: true,
    });
  } catch (error) {
    throw oidcFailure(error, {
      profile: profile.name,
      issuer: profile.issuer,
      doing: 'redeeming the authorization code',
    });
  }
  return options.accept(tokens);
}

function timedOut(profile: string, ms: number): BrokerError {
  return new BrokerError(
    'provider-failed',
    `the browser sign-in for profile "${profile}" was not finished within ${formatRemaining(ms)}`,
    `run: kubecred login ${profile} to try again`,
  );
}
