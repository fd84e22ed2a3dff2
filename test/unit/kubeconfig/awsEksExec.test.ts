import { describe, expect, it } from 'vitest';
import { eksFromAwsExec } from '../../../src/main/kubeconfig/awsEksExec.js';

const env = (pairs: Record<string, string>) => Object.entries(pairs).map(([name, value]) => ({ name, value }));

describe('an aws eks get-token exec block read as the aws CLI parses it', () => {
  it("takes --profile, AWS_PROFILE, --region, AWS_REGION, --cluster-id and --role-arn (with get-token's session name)", () => {
    expect(
      eksFromAwsExec(
        'aws',
        ['--region', 'eu-west-1', 'eks', 'get-token', '--cluster-name', 'prod', '--output', 'json'],
        env({ AWS_PROFILE: 'team' }),
      ),
    ).toEqual({ kind: 'eks', settings: { clusterId: 'prod', region: 'eu-west-1', awsProfile: 'team' } });
    expect(
      eksFromAwsExec(
        '/usr/local/bin/aws',
        ['eks', 'get-token', '--cluster-id=abc-123', '--profile', 'ops', '--role-arn', 'arn:aws:iam::1:role/x'],
        env({ AWS_PROFILE: 'ignored', AWS_DEFAULT_REGION: 'us-east-2', AWS_REGION: 'us-west-2' }),
      ),
    ).toEqual({
      kind: 'eks',
      settings: {
        clusterId: 'abc-123',
        region: 'us-west-2',
        awsProfile: 'ops',
        roleArn: 'arn:aws:iam::1:role/x',
        roleSessionName: 'EKSGetTokenAuth',
      },
    });
    expect(
      eksFromAwsExec(
        'aws',
        ['eks', 'get-token', '--cluster-name', 'c', '--region', 'r'],
        env({ AWS_ENDPOINT_URL: 'https://all.example', AWS_ENDPOINT_URL_STS: 'https://sts.vpce.example' }),
      ),
    ).toMatchObject({ kind: 'eks', settings: { stsEndpoint: 'https://sts.vpce.example' } });
    // Neither --profile nor AWS_PROFILE: the CLI's default profile.
    expect(
      eksFromAwsExec(
        'aws.exe',
        ['eks', 'get-token', '--cluster-name', 'c', '--debug'],
        env({ AWS_DEFAULT_REGION: 'ap-south-1' }),
      ),
    ).toMatchObject({ kind: 'eks', settings: { awsProfile: 'default', region: 'ap-south-1' } });
  });

  it('keeps what an eks profile cannot carry, saying why; leaves other programs and other aws commands alone', () => {
    const reason = (args: string[], pairs: Record<string, string> = {}) => {
      const result = eksFromAwsExec('aws', args, env(pairs));
      return result?.kind === 'kept' ? result.reason : result;
    };
    expect(reason(['eks', 'get-token', '--cluster-name', 'c', '--region', 'r', '--endpoint-url', 'https://x'])).toMatch(
      /because of its option --endpoint-url/,
    );
    expect(
      reason(['eks', 'get-token', '--cluster-name', 'c', '--region', 'r'], {
        AWS_ACCESS_KEY_ID: 'AKIA',
        AWS_SECRET_ACCESS_KEY: 's',
      }),
    ).toMatch(/its env AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY/);
    expect(reason(['eks', 'get-token', '--region', 'r'])).toMatch(/neither --cluster-name nor --cluster-id/);
    expect(reason(['eks', 'get-token', '--cluster-name', 'c'])).toMatch(/no --region/);
    expect(reason(['eks', 'get-token', '--cluster-name'])).toMatch(/--cluster-name without a value/);
    expect(eksFromAwsExec('aws', ['sts', 'get-caller-identity'], [])).toBeUndefined();
    expect(eksFromAwsExec('aws-iam-authenticator', ['token', '-i', 'prod'], [])).toBeUndefined();
    expect(eksFromAwsExec('aws', ['--unknown', 'x', 'ecr', 'get-login-password'], [])).toBeUndefined();
  });
});
