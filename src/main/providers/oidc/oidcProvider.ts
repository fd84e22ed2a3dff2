import * as oidc from 'openid-client';
import { rootCertificates } from 'node:tls';
import { proxySettings, type ProxySettings } from '../../platform/proxyEnvironment.js';
import type { OidcProfileConfig } from '../../../shared/config/schema.js';
import type { Credential } from '../../../shared/credential.js';
import { BrokerError, asBrokerError } from '../../core/brokerError.js';
import { UserDeclined } from '../../core/userDeclined.js';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import type { LoginUiPort } from '../../core/uiPorts.js';
import type { SecretRef, SecretStore } from '../../core/secretStore.js';
import type { CredentialContext, Provider } from '../provider.js';
import { browserLogin } from './browserLogin.js';
import { deviceLogin } from './deviceLogin.js';
import { credentialFromIdToken } from './idTokenCredential.js';
import { IMPORTED_ID_TOKEN_FIELD, takeImportedIdToken } from './importedIdToken.js';
import { IssuerConnection, clockSkewMs } from './issuerConnection.js';
import type { LoginFlowOptions, TokenResponse } from './loginFlow.js';
import { oauthErrorCode, oidcFailure, refreshTokenRefused } from './oidcErrors.js';
import { SingleFlight } from '../singleFlight.js';

export const REFRESH_TOKEN_FIELD = 'refresh-token';
export const DEFAULT_LOGIN_TIMEOUT_MS = 5 * 60_000;

export interface OidcProviderDeps {
  /** The profile's secret store (refresh-token, client-secret). */
  readonly store: () => Promise<SecretStore>;
  readonly ui: LoginUiPort;
  readonly clock: Clock;
  readonly logger: Logger;
  /** How long a browser login may take before it fails; 5 minutes. */
  readonly loginTimeoutMs?: number;
  /** The person's proxy and the machine's trusted roots; none and Node's roots when absent. */
  readonly network?: { readonly proxies: ProxySettings; readonly roots: readonly string[] };
}

// Flight keys: a refresh-or-login for callers, and the interactive login they may all end in.
const CREDENTIAL = 'credential';
const LOGIN = 'login';

/**
 * OIDC login (the kubelogin use case): the ID token is the bearer. Refreshes with the stored
 * refresh token; logs in interactively (browser with a loopback redirect, or the device grant)
 * when there is none or the issuer rejects it. However many callers ask at once, there is one
 * refresh and at most one login per profile: several clusters can share a profile, and a
 * rotating issuer revokes everything when one refresh token is spent twice.
 */
export class OidcProvider implements Provider {
  readonly kind = 'oidc';
  private readonly issuer: IssuerConnection;
  private readonly flights: SingleFlight<Credential>;
  /** Bumped by logout, so a refresh or login still running then cannot store its refresh token afterwards. */
  private epoch = 0;
  private holdsRefreshToken = false;
  /** Why a login is needed, since the issuer rejected the refresh token; cleared by the next login. */
  private refreshRejected: string | undefined;

  constructor(
    private readonly profile: OidcProfileConfig,
    private readonly deps: OidcProviderDeps,
  ) {
    this.issuer = new IssuerConnection(
      profile,
      deps.network ?? { proxies: proxySettings({}), roots: rootCertificates },
    );
    this.flights = new SingleFlight(
      () =>
        new UserDeclined(
          'provider-failed',
          `the login for profile "${profile.name}" was cancelled`,
          `run: kubecred login ${profile.name}`,
        ),
    );
  }

  getCredential(context: CredentialContext): Promise<Credential> {
    // A login already under way (kubecred login, another cluster) answers this caller too.
    if (this.flights.isRunning(LOGIN))
      return this.flights.run(LOGIN, (signal) => this.interactive(context, false, signal), context.signal);
    return this.flights.run(CREDENTIAL, (signal) => this.refreshOrLogin(context, signal), context.signal);
  }

  /**
   * An explicit login's signal is the user's Cancel: it stops the login for every caller
   * waiting on it (kubectl calls that joined too), not just for this one.
   */
  login(context: CredentialContext): Promise<Credential> {
    return this.flights.run(LOGIN, (signal) => this.interactive(context, true, signal), context.signal, 'cancel-all');
  }

  async logout(_profile: string): Promise<void> {
    this.epoch += 1;
    this.refreshRejected = undefined;
    this.holdsRefreshToken = false;
    const store = await this.deps.store();
    const ref = this.ref(REFRESH_TOKEN_FIELD);
    const refreshToken = await store.get(ref);
    await store.delete(ref);
    await store.delete(this.ref(IMPORTED_ID_TOKEN_FIELD));
    if (!refreshToken) return;
    // Best effort: the local copy is gone whatever the issuer says or however long it takes.
    try {
      const config = await this.issuer.configuration(store);
      if (!config.serverMetadata().revocation_endpoint) return;
      config.timeout = 10;
      await oidc.tokenRevocation(config, refreshToken, { token_type_hint: 'refresh_token' });
      this.deps.logger.info('oidc refresh token revoked at the issuer', { profile: this.profile.name });
    } catch (error) {
      this.deps.logger.warn('oidc refresh token revocation failed', {
        profile: this.profile.name,
        reason: this.failure(error, 'revoking the refresh token').message,
      });
    }
  }

  /** Known from this broker's own refreshes and logins: a refresh token is held and was not rejected. */
  canRefreshSilently(): boolean {
    return this.holdsRefreshToken;
  }

  private async refreshOrLogin(context: CredentialContext, signal: AbortSignal): Promise<Credential> {
    const store = await this.deps.store();
    const imported = await takeImportedIdToken(store, this.profile, {
      clockSkewMs: clockSkewMs(this.profile),
      nowMs: this.deps.clock.now(),
    });
    if (imported) return imported;
    const refreshToken = await store.get(this.ref(REFRESH_TOKEN_FIELD));
    // Once rejected, the refresh token is deleted; kubectl's next run (at once) must not be told
    // "has no refresh token" as if that were another problem: the reason stays until a login.
    let why = this.refreshRejected ?? `profile "${this.profile.name}" has no refresh token, so it needs a login`;
    if (refreshToken) {
      const refreshed = await this.refresh(store, refreshToken);
      if (refreshed) return refreshed;
      why = `the issuer rejected the refresh token of profile "${this.profile.name}" (expired or revoked), so it needs a new login`;
      this.refreshRejected = why;
    }
    return this.flights.run(LOGIN, (loginSignal) => this.interactive(context, false, loginSignal, why), signal);
  }

  /** The new credential, or undefined when the issuer rejected the refresh token (now deleted). */
  private async refresh(store: SecretStore, refreshToken: string): Promise<Credential | undefined> {
    const epoch = this.epoch;
    const config = await this.issuer.configuration(store);
    let tokens: TokenResponse;
    try {
      tokens = await oidc.refreshTokenGrant(config, refreshToken);
    } catch (error) {
      if (!refreshTokenRefused(error)) throw this.failure(error, 'refreshing the ID token');
      this.deps.logger.warn('oidc refresh token rejected; a new login is needed', {
        profile: this.profile.name,
        error: oauthErrorCode(error),
      });
      await store.delete(this.ref(REFRESH_TOKEN_FIELD));
      this.holdsRefreshToken = false;
      return undefined;
    }
    return this.accept(store, tokens, refreshToken, epoch);
  }

  private async interactive(
    context: CredentialContext,
    explicit: boolean,
    signal: AbortSignal,
    why = `profile "${this.profile.name}" needs a login`,
  ): Promise<Credential> {
    const { flow } = this.profile;
    const canPrompt = this.canInteract(context, explicit);
    const epoch = this.epoch;
    const store = await this.deps.store();
    const config = await this.issuer.configuration(store);
    // Cancelled while the issuer was being asked: open no browser and show no card.
    signal.throwIfAborted();
    const flowOptions: LoginFlowOptions = {
      config,
      profile: this.profile,
      ui: this.deps.ui,
      signal,
      accept: (tokens) => this.accept(store, tokens, undefined, epoch),
    };
    const started = this.deps.clock.now();
    const finished = (used: string) => (credential: Credential) => {
      this.deps.logger.info('oidc login finished', {
        profile: this.profile.name,
        flow: used,
        ms: this.deps.clock.now() - started,
      });
      return credential;
    };
    this.deps.logger.info('oidc login started', { profile: this.profile.name, flow });

    if (flow === 'device') {
      if (!canPrompt) throw this.needsLogin(`${why}, and this request has no terminal to show a device code in`);
      return deviceLogin(flowOptions).then(finished('device'));
    }
    const hasDevice = config.serverMetadata().device_authorization_endpoint !== undefined;
    const fallBack = flow === 'auto' && hasDevice;
    const result = await browserLogin({
      ...flowOptions,
      timeoutMs: this.deps.loginTimeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS,
      withoutBrowser: canPrompt && !fallBack ? 'show-url' : 'give-up',
    });
    if (result !== 'no-browser') return finished('browser')(result);
    if (!canPrompt) throw this.needsLogin(`${why}, and no browser can be opened for this request`);
    return deviceLogin(flowOptions).then(finished('device'));
  }

  /** Keeps the refresh token the issuer gave (rotated or new) and makes the credential. */
  private async accept(
    store: SecretStore,
    tokens: TokenResponse,
    previousRefreshToken: string | undefined,
    epoch: number,
  ): Promise<Credential> {
    this.refreshRejected = undefined;
    if (!tokens.id_token) {
      throw new BrokerError(
        'provider-failed',
        `the issuer gave no ID token for profile "${this.profile.name}"`,
        "keep openid in the profile's scopes: Kubernetes takes the ID token as the bearer",
      );
    }
    const credential = credentialFromIdToken(tokens.id_token, tokens.claims(), {
      clockSkewMs: clockSkewMs(this.profile),
      nowMs: this.deps.clock.now(),
      profile: this.profile.name,
    });
    const ref = this.ref(REFRESH_TOKEN_FIELD);
    if (epoch !== this.epoch) return credential;
    try {
      if (tokens.refresh_token && tokens.refresh_token !== previousRefreshToken)
        await store.set(ref, tokens.refresh_token);
      // A login that brought no refresh token leaves none from an earlier login, which may be someone else's.
      else if (!tokens.refresh_token && previousRefreshToken === undefined) await store.delete(ref);
      this.holdsRefreshToken = tokens.refresh_token !== undefined || previousRefreshToken !== undefined;
    } catch (error) {
      // The ID token is good; only the next renewal will need a login.
      this.deps.logger.warn('oidc refresh token not kept', {
        profile: this.profile.name,
        store: store.name,
        reason: asBrokerError(error).message,
      });
    }
    return credential;
  }

  /**
   * The login may prompt: an explicit `kubecred login` or a caller with a terminal. Without
   * that, a login still happens when the UI opens a browser (the tray app for a GUI's kubectl).
   */
  private canInteract(context: CredentialContext, explicit: boolean): boolean {
    return explicit || context.interactive;
  }

  private needsLogin(message: string): BrokerError {
    return new BrokerError('locked', message, `run: kubecred login ${this.profile.name}`);
  }

  private failure(error: unknown, doing: string): BrokerError {
    return oidcFailure(error, { profile: this.profile.name, issuer: this.profile.issuer, doing });
  }

  private ref(field: string): SecretRef {
    return { profile: this.profile.name, field };
  }
}
