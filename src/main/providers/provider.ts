import type { Credential } from '../../shared/credential.js';
import type { ClusterInfo } from '../../shared/execCredential.js';

/** What a provider knows about the request it serves. */
export interface CredentialContext {
  readonly profile: string;
  readonly cluster: ClusterInfo | undefined;
  /** The caller has a terminal; a provider that must prompt may use it. */
  readonly interactive: boolean;
  readonly signal?: AbortSignal;
}

/**
 * One credential source (static secrets, an exec plugin, OIDC, Keystone, EKS). The broker
 * caches what it returns and runs one call per profile and cluster at a time.
 */
export interface Provider {
  readonly kind: string;
  getCredential(context: CredentialContext): Promise<Credential>;
  /** An interactive login now, even when a refresh would do (`kubecred login`). */
  login?(context: CredentialContext): Promise<Credential>;
  /** Forget what the provider keeps beyond the cache, such as refresh tokens (`kubecred logout`). */
  logout?(profile: string): Promise<void>;
  /**
   * Whether the next renewal can happen without the user (a refresh token is held, an AWS
   * session is still reused). Absent: the provider never needs the user to renew (keychain
   * secrets, wrapped plugins).
   */
  canRefreshSilently?(): boolean;
  /**
   * Asks the credential's issuer whether it still honours a credential this provider made
   * (Keystone validates its own tokens). 'unknown' when it cannot tell (unreachable, no answer
   * in time): the credential is kept. Absent: the issuer offers no cheap check.
   */
  validate?(credential: Credential, signal: AbortSignal): Promise<Validity>;
}

export type Validity = 'valid' | 'revoked' | 'unknown';
