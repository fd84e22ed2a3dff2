import {
  CREDENTIAL_PROVIDER_API_VERSIONS,
  credentialProviderRequestSchema,
  isCredentialProviderApiVersion,
  type CredentialProviderApiVersion,
} from '../../shared/registry/credentialProvider.js';
import { imageLocation } from '../../shared/registry/imageMatcher.js';
import { BrokerError } from '../core/brokerError.js';

export interface ProviderRequest {
  readonly apiVersion: CredentialProviderApiVersion;
  readonly image: string;
}

const EXAMPLE = `{"apiVersion":"${CREDENTIAL_PROVIDER_API_VERSIONS[0]}","kind":"CredentialProviderRequest","image":"registry.example.com/team/app:1.0"}`;

/** Reads what the kubelet wrote on stdin; every way it can be wrong gets its own message. */
export function parseProviderRequest(raw: string): ProviderRequest {
  if (!raw.trim()) throw bad('no CredentialProviderRequest on stdin');
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw bad(`the CredentialProviderRequest on stdin is not valid JSON (${raw.length} bytes)`);
  }
  const apiVersion = (json as { apiVersion?: unknown } | null)?.apiVersion;
  if (typeof apiVersion === 'string' && !isCredentialProviderApiVersion(apiVersion)) {
    throw new BrokerError(
      'bad-request',
      `the CredentialProviderRequest has apiVersion "${apiVersion.slice(0, 100)}", which Kubecred does not speak`,
      `set apiVersion in the kubelet's CredentialProviderConfig to one of ${CREDENTIAL_PROVIDER_API_VERSIONS.join(', ')}`,
    );
  }
  const parsed = credentialProviderRequestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw bad(
      `the request on stdin is not a CredentialProviderRequest (${issue?.path.join('.') || 'object'}: ${issue?.message ?? 'invalid'})`,
    );
  }
  const { image } = parsed.data;
  if (!imageLocation(image)) throw bad(`"${image.slice(0, 200)}" is not an image reference`);
  return { apiVersion: parsed.data.apiVersion as CredentialProviderApiVersion, image };
}

function bad(message: string): BrokerError {
  return new BrokerError('bad-request', message, `the kubelet sends e.g. ${EXAMPLE}`);
}
