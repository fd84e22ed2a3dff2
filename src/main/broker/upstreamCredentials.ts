import type { ProfileConfig } from '../../shared/config/schema.js';
import type { Credential } from '../../shared/credential.js';
import { credentialCacheKey } from '../cache/cacheKey.js';
import type { CredentialCache } from '../cache/credentialCache.js';
import { BrokerError } from '../core/brokerError.js';
import type { Logger } from '../core/logger.js';
import { sendsOwnCredentialUpstream, type ProxiedProfileConfig } from '../proxy/proxyWiring.js';
import type { ProviderRegistry } from './providerRegistry.js';

/** kubectl's answer for a profile whose own credential goes upstream through kubecred-proxy. */
export interface ProxiedAnswerPort {
  localCredential(profile: ProxiedProfileConfig, upstream: Credential): Promise<Credential>;
  /** A new credential of the profile (a refresh, a login, a new secret) for the proxy's next request. */
  offerUpstream(profile: string, upstream: Credential): Promise<void>;
  /** The profile logged out: the proxy drops its credential and the local certificates it issued. */
  endUpstream(profile: string, reason: string): Promise<void>;
}

export interface UpstreamPorts {
  readonly cache: CredentialCache;
  readonly providers: ProviderRegistry;
  readonly logger: Logger;
  /** Absent: a profile whose credential would go through the proxy is refused with what to do. */
  readonly proxied?: ProxiedAnswerPort;
}

export type UpstreamReason = 'missing' | 'expiring' | 'rejected';

/**
 * The broker's side of profiles whose own credential goes to the cluster from kubecred-proxy:
 * kubectl gets a local certificate, the proxy the credential, and every new credential (a
 * refresh, a login, a new secret) reaches the proxy without the programs that hold a local
 * certificate running the plugin again.
 */
export class UpstreamCredentials {
  constructor(
    private readonly ports: UpstreamPorts,
    /** Ends renewals that wait when the broker stops. */
    private readonly stopping: AbortSignal,
  ) {}

  /** kubectl's answer: a certificate for the profile's listener, once the proxy holds `upstream`. */
  answer(profile: ProxiedProfileConfig, upstream: Credential): Promise<Credential> {
    if (!this.ports.proxied)
      throw new BrokerError(
        'broker-unavailable',
        `profile "${profile.name}" goes through the exec proxy, which this broker does not run`,
        'start the Kubecred broker (kubecred daemon, or the tray app)',
      );
    return this.ports.proxied.localCredential(profile, upstream);
  }

  /**
   * The credential for kubecred-proxy, which has nobody to ask: the cached one, or one renewed
   * without the user (a refresh token, a stored secret, the plugin run again). When only a
   * login would do, the proxy is told so (401), and client-go runs the plugin, which brings the
   * login to the program's user.
   */
  async credential(profile: ProfileConfig, reason: UpstreamReason): Promise<Credential> {
    if (!sendsOwnCredentialUpstream(profile))
      throw new BrokerError('denied', `profile "${profile.name}" sends no credential of its own upstream`);
    const { provider } = this.ports.providers.resolve(profile);
    // The cluster refused it: that one is done, whatever its expiry said.
    if (reason === 'rejected') this.ports.cache.forget(profile.name);
    if (!this.ports.cache.describe(profile.name).cached && provider.canRefreshSilently?.() === false)
      throw new BrokerError(
        'unauthorized',
        `profile "${profile.name}" needs a login`,
        `run the command again (Kubecred then asks you), or: kubecred login ${profile.name}`,
      );
    const { credential } = await this.ports.cache.get(credentialCacheKey(profile.name, undefined), () =>
      provider.getCredential({ profile: profile.name, cluster: undefined, interactive: false, signal: this.stopping }),
    );
    return credential;
  }

  /** A new credential of the profile (a refresh, a login) for the proxy's next request. */
  async offer(profile: ProfileConfig, credential: Credential): Promise<void> {
    if (!sendsOwnCredentialUpstream(profile)) return;
    await this.ports.proxied?.offerUpstream(profile.name, credential).catch((error: Error) =>
      this.ports.logger.warn('could not hand kubecred-proxy the new credential', {
        profile: profile.name,
        reason: error.message,
      }),
    );
  }

  /**
   * The profile's secret changed: the proxy's next request shows the new credential, made now
   * without anyone (a profile that needs a login gets it at the next kubectl).
   */
  async renew(profile: ProfileConfig): Promise<void> {
    if (!sendsOwnCredentialUpstream(profile) || !this.ports.proxied) return;
    try {
      await this.offer(profile, await this.credential(profile, 'missing'));
    } catch (error) {
      this.ports.logger.info('the exec proxy keeps its credential until one can be made without you', {
        profile: profile.name,
        reason: (error as Error).message,
      });
    }
  }

  /** Logged out: programs holding a local certificate of the proxy are too; their next request fails. */
  async end(profile: ProfileConfig): Promise<void> {
    if (sendsOwnCredentialUpstream(profile))
      await this.ports.proxied?.endUpstream(
        profile.name,
        `profile ${profile.name} was logged out of Kubecred: run the command again to log in`,
      );
  }
}
