import path from 'node:path';

/** The eks profile settings an `aws eks get-token` exec block stands for. */
export interface EksSettings {
  readonly clusterId: string;
  readonly region: string;
  readonly awsProfile: string;
  readonly roleArn?: string;
  readonly roleSessionName?: string;
  readonly stsEndpoint?: string;
}

export type EksConversion =
  { readonly kind: 'eks'; readonly settings: EksSettings } | { readonly kind: 'kept'; readonly reason: string };

// The aws CLI's options get-token runs with, and whether each takes a value.
const TAKES_VALUE = new Set([
  'region',
  'profile',
  'output',
  'cluster-name',
  'cluster-id',
  'role-arn',
  'query',
  'color',
  'cli-read-timeout',
  'cli-connect-timeout',
]);
const NO_VALUE = new Set(['debug', 'no-cli-pager', 'no-paginate', 'no-cli-auto-prompt']);
// get-token's own session name for --role-arn (awscli/customizations/eks/get_token.py).
const GET_TOKEN_SESSION = 'EKSGetTokenAuth';

/**
 * Reads an exec block that runs `aws eks get-token` the way the aws CLI parses it. undefined:
 * another program. 'kept': get-token, but with something an eks profile cannot carry (the
 * block stays a wrapped plugin and the reason says what). The aws CLI with neither --profile nor
 * AWS_PROFILE uses the default profile of its files, which is what the eks profile reads.
 */
export function eksFromAwsExec(
  command: string,
  args: readonly string[],
  env: readonly { name: string; value: string }[],
): EksConversion | undefined {
  if (!/^aws(\.exe|\.cmd)?$/i.test(path.basename(command))) return undefined;
  const options = new Map<string, string>();
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    if (NO_VALUE.has(name)) continue;
    if (!TAKES_VALUE.has(name))
      return args.includes('eks') && args.includes('get-token') ? kept(`its option --${name}`) : undefined;
    const value = inline ?? args[++i];
    if (value === undefined) return kept(`--${name} without a value`);
    options.set(name, value);
  }
  if (positional.join(' ') !== 'eks get-token') return undefined;
  const envOf = new Map(env.map((e) => [e.name, e.value]));
  const awsEnv = [...envOf.keys()].filter(
    (name) =>
      name.startsWith('AWS_') &&
      ![
        'AWS_PROFILE',
        'AWS_REGION',
        'AWS_DEFAULT_REGION',
        'AWS_STS_REGIONAL_ENDPOINTS',
        'AWS_ENDPOINT_URL_STS',
        'AWS_ENDPOINT_URL',
      ].includes(name),
  );
  if (awsEnv.length)
    return kept(`its env ${awsEnv.join(', ')} (keys and file locations are not settings of a profile)`);
  const clusterId = options.get('cluster-id') ?? options.get('cluster-name');
  if (!clusterId) return kept('neither --cluster-name nor --cluster-id');
  const region = options.get('region') ?? envOf.get('AWS_REGION') ?? envOf.get('AWS_DEFAULT_REGION');
  if (!region)
    return kept(
      'no --region (nor AWS_REGION in its env): the region then comes from the AWS profile, which Kubecred does not guess at import',
    );
  const roleArn = options.get('role-arn');
  // The CLI's service-specific endpoint wins over the general one (a VPC endpoint, a local STS).
  const stsEndpoint = envOf.get('AWS_ENDPOINT_URL_STS') ?? envOf.get('AWS_ENDPOINT_URL');
  return {
    kind: 'eks',
    settings: {
      clusterId,
      region,
      awsProfile: options.get('profile') ?? envOf.get('AWS_PROFILE') ?? 'default',
      ...(roleArn ? { roleArn, roleSessionName: GET_TOKEN_SESSION } : {}),
      ...(stsEndpoint ? { stsEndpoint } : {}),
    },
  };
}

function kept(what: string): EksConversion {
  return {
    kind: 'kept',
    reason: `this is aws eks get-token, kept as a wrapped plugin because of ${what}; an eks profile (kubecred profile add <name> --provider eks) makes the same tokens itself`,
  };
}
