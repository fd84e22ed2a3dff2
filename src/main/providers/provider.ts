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

/** One credential source (static secrets, an exec plugin, OIDC, ...). Stateless between calls: the broker caches. */
export interface Provider {
  readonly kind: string;
  getCredential(context: CredentialContext): Promise<Credential>;
}
