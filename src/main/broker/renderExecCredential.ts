import type { Credential } from '../../shared/credential.js';
import type { ExecApiVersion } from '../../shared/execCredential.js';

/** The ExecCredential object in the version the caller asked for. */
export function renderExecCredential(apiVersion: ExecApiVersion, credential: Credential): string {
  const status: Record<string, string> = {};
  if (credential.token !== undefined) status.token = credential.token;
  if (credential.clientCertificateData !== undefined && credential.clientKeyData !== undefined) {
    status.clientCertificateData = credential.clientCertificateData;
    status.clientKeyData = credential.clientKeyData;
  }
  if (credential.expiresAt) status.expirationTimestamp = credential.expiresAt.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return `${JSON.stringify({ apiVersion, kind: 'ExecCredential', spec: {}, status })}\n`;
}
