import type { ProfileConfig } from '../../shared/config/schema.js';
import type { ProxySettings } from '../platform/proxyEnvironment.js';
import type { ProviderKind } from '../../shared/config/providerFacts.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { SecretStore } from '../core/secretStore.js';
import type { LoginUiPort } from '../core/uiPorts.js';
import type { AwsSessions } from './eks/awsSessions.js';
import type { Provider } from './provider.js';
import type { TokenProxiedProfileConfig } from './static/staticProvider.js';

/**
 * Everything any provider may be given, built once by the composition root. Each descriptor
 * takes what its provider needs, so a new provider adds a member here only when it needs
 * something no provider had.
 */
export interface ProviderDependencies {
  readonly clock: Clock;
  readonly logger: Logger;
  /** The store of the named profile's secrets, resolved at each use (config.yaml may change). */
  storeFor(profile: string): Promise<SecretStore>;
  /** For a browser login (oidc): opens pages and shows the login, never asks who is calling. */
  readonly loginUi: LoginUiPort;
  /** For questions asked while serving a request: a PIN or form names the program that asked. */
  readonly askingUi: LoginUiPort;
  /** Shows a wrapped plugin's own words (a device code) until `until` aborts. */
  showMessage(profile: string, text: string, until: AbortSignal): void;
  /** Secrets typed in a terminal for a profile's next login. */
  readonly typedSecrets: { take(profile: string): string | undefined };
  readonly awsSessions: AwsSessions;
  /** The environment an awsProfile's files are found by. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The network as the person's tools see it: the proxy each request goes through, the machine's trusted roots. */
  readonly network: { readonly proxies: ProxySettings; readonly roots: readonly string[] };
  tokenCertificate(token: string, label: string): Promise<{ certificatePem: string; keyPem: string }>;
  proxyCredential(
    profile: TokenProxiedProfileConfig,
  ): Promise<{ certificatePem: string; keyPem: string; expiresAt: Date }>;
}

export type ProfileOf<Kind extends ProviderKind> = Extract<ProfileConfig, { provider: Kind }>;

/**
 * A login provider as the broker knows it: one per folder of src/main/providers, listed in
 * providerCatalog.ts. What other runtimes know of it (does it sign in, does it renew by
 * itself) is in src/shared/config/providerFacts.ts.
 */
export interface ProviderDescriptor<Kind extends ProviderKind> {
  readonly kind: Kind;
  /** The secret fields its provider reads from the profile's store; the broker refuses any other. */
  readonly secretFields: readonly string[];
  create(profile: ProfileOf<Kind>, dependencies: ProviderDependencies): Provider;
  /**
   * Whether this profile needs a person now and then, when that depends on its settings (eks
   * with MFA or SSO); absent, the kind's fact holds.
   */
  signsIn?(profile: ProfileOf<Kind>, env: ProviderDependencies['env']): Promise<boolean | undefined>;
}
