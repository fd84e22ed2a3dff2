import { z } from 'zod';

/**
 * The kubelet's credential provider protocol (credentialprovider.kubelet.k8s.io): the
 * kubelet writes a CredentialProviderRequest to the plugin's stdin and reads a
 * CredentialProviderResponse from its stdout. The three versions share one shape; the
 * answer carries the version that was asked.
 */
export const CREDENTIAL_PROVIDER_API_VERSIONS = [
  'credentialprovider.kubelet.k8s.io/v1',
  'credentialprovider.kubelet.k8s.io/v1beta1',
  'credentialprovider.kubelet.k8s.io/v1alpha1',
] as const;
export type CredentialProviderApiVersion = (typeof CREDENTIAL_PROVIDER_API_VERSIONS)[number];

export const CACHE_KEY_TYPES = ['Image', 'Registry', 'Global'] as const;
export type CacheKeyType = (typeof CACHE_KEY_TYPES)[number];

/** Loose on purpose: newer kubelets add fields (serviceAccountToken, ...) that we do not use. */
export const credentialProviderRequestSchema = z.looseObject({
  apiVersion: z.string(),
  kind: z.literal('CredentialProviderRequest'),
  image: z.string().trim().min(1, { message: 'the image is empty' }),
});

export interface RegistryAuth {
  readonly username: string;
  readonly password: string;
}

export interface CredentialProviderResponse {
  readonly apiVersion: CredentialProviderApiVersion;
  readonly kind: 'CredentialProviderResponse';
  readonly cacheKeyType: CacheKeyType;
  readonly cacheDuration: string;
  /** Keyed by image matcher: the kubelet uses each entry for the images its key matches. */
  readonly auth: Readonly<Record<string, RegistryAuth>>;
}

export function isCredentialProviderApiVersion(value: string): value is CredentialProviderApiVersion {
  return (CREDENTIAL_PROVIDER_API_VERSIONS as readonly string[]).includes(value);
}

/** A duration as Go's time.Duration prints it ("5m0s", "1h0m0s"), which the kubelet reads back. */
export function goDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}
