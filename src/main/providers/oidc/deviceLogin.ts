import * as oidc from 'openid-client';
import type { Credential } from '../../../shared/credential.js';
import { BrokerError } from '../../core/brokerError.js';
import { deviceAuthorizationParams } from './authorizationParams.js';
import type { LoginFlowOptions } from './loginFlow.js';
import { oauthErrorCode, oidcFailure } from './oidcErrors.js';

/**
 * The device authorization grant (RFC 8628): the user enters a code on any device while we
 * poll. openid-client keeps to the issuer's interval and backs off on slow_down; the login
 * ends when the device code expires (expires_in) or every caller has gone.
 */
export async function deviceLogin(options: LoginFlowOptions): Promise<Credential> {
  const { config, profile, ui, signal } = options;
  const where = { profile: profile.name, issuer: profile.issuer };
  if (!config.serverMetadata().device_authorization_endpoint) {
    throw new BrokerError(
      'provider-failed',
      `the issuer of profile "${profile.name}" (${profile.issuer}) offers no device login`,
      'set flow: browser in the profile, and run the login where a browser can open',
    );
  }
  let authorization: oidc.DeviceAuthorizationResponse;
  try {
    authorization = await oidc.initiateDeviceAuthorization(config, deviceAuthorizationParams(profile));
  } catch (error) {
    throw oidcFailure(error, { ...where, doing: 'starting the device login' });
  }
  const {
    user_code: userCode,
    verification_uri: verificationUri,
    verification_uri_complete: verificationUriComplete,
  } = authorization;
  const shown = new AbortController();
  ui.showLogin(
    {
      profile: profile.name,
      kind: 'device',
      userCode,
      verificationUri,
      ...(verificationUriComplete ? { verificationUriComplete } : {}),
    },
    shown.signal,
  );
  const expiry = AbortSignal.timeout(authorization.expires_in * 1000);
  try {
    let tokens;
    try {
      tokens = await oidc.pollDeviceAuthorizationGrant(config, authorization, undefined, {
        signal: AbortSignal.any([signal, expiry]),
      });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      const code = oauthErrorCode(error);
      if (expiry.aborted || code === 'expired_token') {
        throw new BrokerError(
          'provider-failed',
          `the device code for profile "${profile.name}" expired before the sign-in was finished`,
          `run: kubecred login ${profile.name} and enter the new code`,
        );
      }
      if (code === 'access_denied') {
        throw new BrokerError(
          'provider-failed',
          `the device sign-in for profile "${profile.name}" was refused at the issuer (access_denied)`,
          `run: kubecred login ${profile.name} to try again`,
        );
      }
      throw oidcFailure(error, { ...where, doing: 'the device login' });
    }
    return await options.accept(tokens);
  } finally {
    shown.abort();
  }
}
