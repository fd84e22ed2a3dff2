import type { Credential } from '../../shared/credential.js';
import type { ClusterInfo } from '../../shared/execCredential.js';
import type { CredentialCache } from '../cache/credentialCache.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { Provider } from '../providers/provider.js';
import { IssuerRecheck } from './issuerRecheck.js';
import type { RevocationCheck } from './revocationCheck.js';

export interface AfterServePorts {
  readonly clock: Clock;
  readonly cache: CredentialCache;
  readonly logger: Logger;
  /** Finds cached tokens the cluster stopped accepting; absent: never asks the cluster. */
  readonly revocations?: RevocationCheck;
  /** Asks an issuer that offers it (Keystone) whether a cached credential still holds; made here when absent. */
  readonly issuerChecks?: IssuerRecheck;
}

/** An answer just served, as the checks after it see it. */
export interface ServedCredential {
  readonly profile: string;
  readonly callerPid: number | undefined;
  readonly cluster: ClusterInfo | undefined;
  readonly credential: Credential;
  readonly fromCache: boolean;
  readonly provider: Provider;
}

/**
 * Whether a credential served from the cache still holds, asked beside the answer and never
 * before it: the cluster (RevocationCheck) or the issuer (IssuerRecheck) may have revoked it
 * without anyone logging out. One that no longer holds is dropped, so client-go's retry, or
 * the next command, gets a new one.
 */
export class AfterServe {
  private readonly issuerChecks: IssuerRecheck;

  constructor(private readonly ports: AfterServePorts) {
    this.issuerChecks = ports.issuerChecks ?? new IssuerRecheck(ports.clock);
  }

  /** Settles when no check of the profile's credential is under way: one about to be dropped is not served again meanwhile. */
  settled(profile: string): Promise<void> {
    return this.issuerChecks.settled(profile);
  }

  /** Starts the checks this answer calls for, and returns at once. */
  served({ profile, callerPid, cluster, credential, fromCache, provider }: ServedCredential): void {
    this.ports.revocations?.afterServe({ profile, callerPid, cluster, token: credential.token, fromCache }, () =>
      this.drop(profile, 'the cluster refused the cached token; it is dropped and fetched anew'),
    );
    const validate = provider.validate?.bind(provider);
    this.issuerChecks.afterServe(
      { profile, callerPid, fromCache },
      validate && ((signal) => validate(credential, signal)),
      () => this.drop(profile, 'the issuer no longer honours the cached credential; it is dropped and fetched anew'),
    );
  }

  private drop(profile: string, why: string): void {
    this.ports.logger.info(why, { profile });
    this.ports.cache.forget(profile);
  }
}
