import type { Credential } from '../../shared/credential.js';
import { BrokerError } from '../core/brokerError.js';

/** A profile's credential as kubecred-proxy shows it upstream; held in the proxy's memory only. */
export interface UpstreamCredentialMessage {
  readonly token?: string;
  readonly certificatePem?: string;
  readonly keyPem?: string;
  readonly expiresAt: string | null;
}

export function upstreamCredentialMessage(profile: string, credential: Credential): UpstreamCredentialMessage {
  const certificate =
    credential.clientCertificateData && credential.clientKeyData
      ? { certificatePem: credential.clientCertificateData, keyPem: credential.clientKeyData }
      : {};
  if (!credential.token && !certificate.certificatePem)
    throw new BrokerError(
      'provider-failed',
      `profile "${profile}" gave no token or client certificate for kubecred-proxy to show the cluster`,
      'check the profile with: kubecred doctor',
    );
  return {
    ...(credential.token ? { token: credential.token } : {}),
    ...certificate,
    expiresAt: credential.expiresAt ? credential.expiresAt.toISOString() : null,
  };
}
