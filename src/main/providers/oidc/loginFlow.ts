import type * as oidc from 'openid-client';
import type { OidcProfileConfig } from '../../../shared/config/schema.js';
import type { Credential } from '../../../shared/credential.js';
import type { LoginUiPort } from '../../core/uiPorts.js';

export type TokenResponse = oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers;

/** What the browser and device logins share. */
export interface LoginFlowOptions {
  readonly config: oidc.Configuration;
  readonly profile: OidcProfileConfig;
  readonly ui: LoginUiPort;
  /** Aborts when every caller waiting for this login has gone. */
  readonly signal: AbortSignal;
  /** Turns the issuer's answer into the credential (and keeps the refresh token); its failure fails the login. */
  readonly accept: (tokens: TokenResponse) => Promise<Credential>;
}
