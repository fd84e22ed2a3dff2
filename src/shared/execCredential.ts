import { z } from 'zod';

/**
 * The client.authentication.k8s.io ExecCredential versions. v1alpha1 is read only for old
 * clients; kubectl 1.24+ sends v1beta1 or v1.
 */
export const EXEC_API_VERSIONS = [
  'client.authentication.k8s.io/v1',
  'client.authentication.k8s.io/v1beta1',
  'client.authentication.k8s.io/v1alpha1',
] as const;
export type ExecApiVersion = (typeof EXEC_API_VERSIONS)[number];

export function isExecApiVersion(value: unknown): value is ExecApiVersion {
  return typeof value === 'string' && (EXEC_API_VERSIONS as readonly string[]).includes(value);
}

/** spec.cluster, sent when the kubeconfig says provideClusterInfo: true. */
export const clusterInfoSchema = z
  .object({
    server: z.string().optional(),
    'tls-server-name': z.string().optional(),
    'insecure-skip-tls-verify': z.boolean().optional(),
    'certificate-authority-data': z.string().optional(),
    'proxy-url': z.string().optional(),
    'disable-compression': z.boolean().optional(),
    config: z.unknown().optional(),
  })
  .passthrough();
export type ClusterInfo = z.infer<typeof clusterInfoSchema>;

/** What kubectl puts in KUBERNETES_EXEC_INFO. */
export const execInfoSchema = z.object({
  apiVersion: z.string(),
  kind: z.literal('ExecCredential'),
  spec: z
    .object({
      interactive: z.boolean().optional(),
      cluster: clusterInfoSchema.optional(),
    })
    .passthrough()
    .default({}),
});

/** status of an ExecCredential: what a provider produces and a plugin prints. */
export const execCredentialStatusSchema = z
  .object({
    token: z.string().min(1).optional(),
    clientCertificateData: z.string().min(1).optional(),
    clientKeyData: z.string().min(1).optional(),
    expirationTimestamp: z.string().datetime({ offset: true }).optional(),
  })
  .refine((s) => s.token !== undefined || (s.clientCertificateData && s.clientKeyData), {
    message: 'status needs a token, or clientCertificateData and clientKeyData',
  })
  .refine((s) => (s.clientCertificateData === undefined) === (s.clientKeyData === undefined), {
    message: 'clientCertificateData and clientKeyData come together',
  });

export const execCredentialSchema = z.object({
  apiVersion: z.string(),
  kind: z.literal('ExecCredential'),
  spec: z.object({}).passthrough().optional(),
  status: execCredentialStatusSchema,
});
export type ExecCredential = z.infer<typeof execCredentialSchema>;
