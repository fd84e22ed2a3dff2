import type { ProxySupervisor } from '../proxy/proxySupervisor.js';
import type { Pkcs11Service } from '../secrets/pkcs11/pkcs11Service.js';
import type { SecretAdmin } from '../secrets/secretAdmin.js';
import type { CredentialBroker } from './credentialBroker.js';
import type { InteractionBoard } from '../ui/interactionBoard.js';
import type { RegistryBroker } from './registryBroker.js';
import type { ScreenedAnswers } from './screenedAnswers.js';
import type { GuardControl } from './guardControl.js';
import type { ProfileRemoval } from './profileRemoval.js';

/** What composeBroker hands its hosts: the use cases the server, the web UI and the tray call. */
export interface BrokerServices {
  readonly credentials: CredentialBroker;
  readonly admin: SecretAdmin;
  /** Image registry credentials (kubelet credential provider, docker credential helper). */
  readonly registries: RegistryBroker;
  readonly interactions: InteractionBoard;
  /** Profiles' guards: lifted for a while, or back (`kubecred guard`, the window, the tray). */
  readonly guards: GuardControl;
  /** Takes a profile out of config.yaml and forgets what the broker holds of it. */
  readonly profiles: ProfileRemoval;
  /** kubecred-proxy: the local CA that kubeconfigs of proxied profiles trust. */
  readonly proxies: Pick<ProxySupervisor, 'caCertificate' | 'status'>;
  /** The broker's PKCS#11 service, for making and certifying keys (the window's enrollment). */
  tokenKeys(): Promise<
    Pick<Pkcs11Service, 'generateKey' | 'publicKeyOf' | 'signDigest' | 'storeCertificate' | 'discardKey'>
  >;
  /** MFA codes typed in a terminal, for the eks profile that asked (POST /v1/profiles/:name/mfa). */
  readonly mfaCodes: Pick<ScreenedAnswers, 'offer'>;
  /** Keystone passwords typed in a terminal, for the profile that asked (POST /v1/profiles/:name/login-secret). */
  readonly loginSecrets: Pick<ScreenedAnswers, 'offer'>;
  /**
   * `kubecred import --undo`: writes the refresh tokens Kubecred holds now into the legacy oidc
   * users the undo restored (their issuer may have rotated the backup's); the users rewritten.
   */
  restoreLiveRefreshTokens(): Promise<string[]>;
  /** Why the broker's last keychain call failed; null when it answered (doctor shows it). */
  keychainFailure(): string | null;
  /** Called when a profile's state may have changed (served, dropped, failed); returns the unsubscribe. */
  onProfilesChanged(listener: () => void): () => void;
  /** Called once new audit records are written (a credential served from memory changes no profile). */
  onAudited(listener: () => void): () => void;
  close(): Promise<void>;
}
