import type { Credential } from '../../../shared/credential.js';
import { execCredentialSchema } from '../../../shared/execCredential.js';
import { BrokerError } from '../../core/brokerError.js';
import { parseServerTimestamp } from '../../../shared/serverTimestamp.js';

interface OutputContext {
  readonly name: string;
  readonly apiVersion: string;
  readonly now: number;
  readonly ttlMs: number;
}

/**
 * Validates what a wrapped plugin printed. Its stdout may hold a secret, so it is never
 * quoted back: errors describe the shape only.
 */
export function parsePluginOutput(stdout: string, { name, apiVersion, now, ttlMs }: OutputContext): Credential {
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    throw new BrokerError(
      'provider-failed',
      `${name} printed something that is not JSON (${stdout.length} bytes on stdout)`,
      'a plugin must print only an ExecCredential object on stdout',
    );
  }
  const parsed = execCredentialSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new BrokerError(
      'provider-failed',
      `${name} printed an invalid ExecCredential (${issue?.path.join('.') || 'object'}: ${issue?.message ?? 'invalid'})`,
      "check the plugin's version and the profile's apiVersion",
    );
  }
  if (parsed.data.apiVersion !== apiVersion) {
    throw new BrokerError(
      'provider-failed',
      `${name} answered with apiVersion ${quoteShort(parsed.data.apiVersion)}, but ${apiVersion} was asked`,
      "set the profile's apiVersion to one the plugin speaks",
    );
  }
  const { token, clientCertificateData, clientKeyData, expirationTimestamp } = parsed.data.status;
  const expiresAt = new Date((expirationTimestamp && parseServerTimestamp(expirationTimestamp)) || now + ttlMs);
  return {
    ...(token !== undefined ? { token } : {}),
    ...(clientCertificateData !== undefined && clientKeyData !== undefined
      ? { clientCertificateData, clientKeyData }
      : {}),
    expiresAt,
  };
}

/** A value the plugin chose, made safe to put in a one-line error: printable and short. */
function quoteShort(value: string, max = 64): string {
  const printable = value.replace(/[^\x20-\x7e]/g, '?');
  return JSON.stringify(printable.length > max ? `${printable.slice(0, max)}...` : printable);
}
