import { presignUrl, type AwsCredentials } from './sigv4.js';

/** The constants of awscli/customizations/eks/get_token.py. */
export const TOKEN_PREFIX = 'k8s-aws-v1.';
export const CLUSTER_ID_HEADER = 'x-k8s-aws-id';
/** X-Amz-Expires of the presigned URL; EKS itself accepts a token for 15 min from X-Amz-Date. */
export const URL_EXPIRES_SECONDS = 60;
/** The CLI's expirationTimestamp: 14 min after now, so clients renew before EKS's 15 min run out. */
export const TOKEN_LIFETIME_MS = 14 * 60_000;

export interface EksTokenInput {
  readonly clusterId: string;
  readonly region: string;
  readonly endpoint: URL;
  readonly credentials: AwsCredentials;
  readonly now: number;
}

/**
 * The bearer token `aws eks get-token` prints: "k8s-aws-v1." and the presigned STS
 * GetCallerIdentity URL, base64url without padding, with the cluster id signed as the
 * x-k8s-aws-id header. Both timestamps use whole seconds, as the CLI's strftime does.
 */
export function eksToken(input: EksTokenInput): { token: string; expiresAt: Date } {
  const url = presignUrl({
    url: input.endpoint,
    region: input.region,
    service: 'sts',
    credentials: input.credentials,
    params: [
      ['Action', 'GetCallerIdentity'],
      ['Version', '2011-06-15'],
    ],
    headers: { [CLUSTER_ID_HEADER]: input.clusterId },
    expiresSeconds: URL_EXPIRES_SECONDS,
    now: input.now,
  });
  const wholeSeconds = Math.floor(input.now / 1000) * 1000;
  return {
    token: TOKEN_PREFIX + Buffer.from(url, 'utf8').toString('base64url'),
    expiresAt: new Date(wholeSeconds + TOKEN_LIFETIME_MS),
  };
}
