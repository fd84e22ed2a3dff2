import type { Credential } from '../../../shared/credential.js';
import type { StaticProfileConfig } from '../../../shared/config/schema.js';
import { BrokerError } from '../../core/brokerError.js';
import type { SecretStore } from '../../core/secretStore.js';
import type { CredentialContext, Provider } from '../provider.js';

/** The secrets a static profile reads: a token, or a client certificate and its key. */
export const STATIC_FIELDS = ['token', 'client-certificate', 'client-key'] as const;
/** Where a static profile keeps its client certificate (PEM); its page reads it too. */
export const [, CERTIFICATE_FIELD] = STATIC_FIELDS;
const [TOKEN, , KEY] = STATIC_FIELDS;

export interface StaticProviderDeps {
  storeFor(profile: string): Promise<SecretStore>;
  tokenCertificate(token: string, label: string): Promise<{ certificatePem: string; keyPem: string }>;
  /** kubectl's certificate for the exec proxy's listener of a profile with `proxy:`. */
  proxyCredential(
    profile: TokenProxiedProfileConfig,
  ): Promise<{ certificatePem: string; keyPem: string; expiresAt: Date }>;
}

/** A static profile whose token key signs in kubecred-proxy. */
export type TokenProxiedProfileConfig = StaticProfileConfig &
  Required<Pick<StaticProfileConfig, 'proxy' | 'tokenCertificate'>>;

/** A long-lived token or client certificate, kept in a secret store or on a token instead of the kubeconfig. */
export class StaticProvider implements Provider {
  readonly kind = 'static';

  constructor(
    private readonly profile: StaticProfileConfig,
    private readonly deps: StaticProviderDeps,
  ) {}

  async getCredential({ profile }: CredentialContext): Promise<Credential> {
    const { proxy, tokenCertificate } = this.profile;
    if (proxy && tokenCertificate) {
      const local = await this.deps.proxyCredential({ ...this.profile, proxy, tokenCertificate });
      return { clientCertificateData: local.certificatePem, clientKeyData: local.keyPem, expiresAt: local.expiresAt };
    }
    if (this.profile.tokenCertificate) {
      const { token, label } = this.profile.tokenCertificate;
      const pair = await this.deps.tokenCertificate(token, label);
      return { clientCertificateData: pair.certificatePem, clientKeyData: pair.keyPem };
    }
    const secrets = await this.deps.storeFor(profile);
    const token = await secrets.get({ profile, field: TOKEN });
    if (token) return { token: token.trim() };
    const [certificate, key] = await Promise.all([
      secrets.get({ profile, field: CERTIFICATE_FIELD }),
      secrets.get({ profile, field: KEY }),
    ]);
    if (certificate && key) return { clientCertificateData: certificate, clientKeyData: key };
    if (certificate || key) {
      const missing = certificate ? 'client-key' : 'client-certificate';
      throw new BrokerError(
        'secret-missing',
        `profile "${profile}" has a ${certificate ? 'client certificate' : 'client key'} but no ${missing}`,
        `store it with: kubecred secret set ${profile} ${missing} < file.pem`,
      );
    }
    // The how is in the message: status and the window show a failure's message, not its hint.
    throw new BrokerError(
      'secret-missing',
      `profile "${profile}" has no token or client certificate in the ${secrets.name}: store its token with kubecred secret set ${profile} token, or with Edit… → Bearer token in the Kubecred window`,
      'kubecred secret set reads the value from stdin or a hidden prompt, never from arguments',
    );
  }
}
