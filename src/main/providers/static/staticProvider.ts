import type { Credential } from '../../../shared/credential.js';
import { BrokerError } from '../../broker/brokerError.js';
import type { SecretStore } from '../../secrets/secretStore.js';
import type { CredentialContext, Provider } from '../provider.js';

export const STATIC_FIELDS = ['token', 'client-certificate', 'client-key'] as const;

/** A long-lived token or client certificate, kept in a secret store instead of the kubeconfig. */
export class StaticProvider implements Provider {
  readonly kind = 'static';

  constructor(private readonly secrets: SecretStore) {}

  async getCredential({ profile }: CredentialContext): Promise<Credential> {
    const token = await this.secrets.get({ profile, field: 'token' });
    if (token) return { token: token.trim() };
    const [certificate, key] = await Promise.all([
      this.secrets.get({ profile, field: 'client-certificate' }),
      this.secrets.get({ profile, field: 'client-key' }),
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
    throw new BrokerError(
      'secret-missing',
      `profile "${profile}" has no token or client certificate in the ${this.secrets.name}`,
      `store one with: kubecred secret set ${profile} token   (the value is read from stdin)`,
    );
  }
}
