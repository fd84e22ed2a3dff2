/**
 * The DNS suffix of each AWS partition, matched by region name as botocore's
 * data/partitions.json does (botocore 1.43); every other region is in the aws partition.
 */
const PARTITIONS: readonly (readonly [RegExp, string])[] = [
  [/^cn-\w+-\d+$/, 'amazonaws.com.cn'],
  [/^us-iso-\w+-\d+$/, 'c2s.ic.gov'],
  [/^us-isob-\w+-\d+$/, 'sc2s.sgov.gov'],
  [/^us-isof-\w+-\d+$/, 'csp.hci.ic.gov'],
  [/^eu-isoe-\w+-\d+$/, 'cloud.adc-e.uk'],
  [/^eusc-de-\w+-\d+$/, 'amazonaws.eu'],
];

/**
 * The STS endpoint `aws eks get-token` presigns for: the regional one, https://sts.<region>.<suffix>/,
 * for every region including us-east-1: sts_regional_endpoints defaults to "regional" since
 * AWS CLI v1 1.42.0 / botocore 1.40.0 (July 2025). Older v1 CLIs presigned the global
 * https://sts.amazonaws.com/ (signed for us-east-1) for the 15 original regions; EKS accepts
 * both. The profile's stsEndpoint overrides it (VPC endpoints, tests).
 */
export function stsEndpointFor(region: string): URL {
  const suffix = PARTITIONS.find(([pattern]) => pattern.test(region))?.[1] ?? 'amazonaws.com';
  return new URL(`https://sts.${region}.${suffix}/`);
}
