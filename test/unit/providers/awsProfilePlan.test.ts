import { describe, expect, it } from 'vitest';
import { planOfAwsProfile } from '../../../src/main/providers/eks/awsProfilePlan.js';
import { splitCommandLine } from '../../../src/main/providers/eks/credentialProcess.js';

const WHERE = { config: '/h/.aws/config', credentials: '/h/.aws/credentials' };
const ROLE = 'arn:aws:iam::123456789012:role/admin';

describe('an AWS profile planned as the aws CLI resolves it', () => {
  it("takes a whole set of keys from one file: the credentials file's when it has a key id", () => {
    const plan = planOfAwsProfile(
      'p',
      '[profile p]\naws_access_key_id=C\naws_secret_access_key=CS\naws_session_token=CT\n',
      '[p]\naws_access_key_id=K\naws_secret_access_key=KS\n',
      WHERE,
    );
    expect(plan).toEqual({
      source: {
        kind: 'keys',
        keys: { accessKeyId: 'K', secretAccessKey: 'KS' },
        from: 'AWS profile "p" in /h/.aws/credentials',
      },
      steps: [],
    });
    const fromDefault = planOfAwsProfile(
      'default',
      '[default]\naws_access_key_id=D\naws_secret_access_key=DS\naws_security_token=DT\n',
      '',
      WHERE,
    );
    expect(fromDefault.source).toEqual({
      kind: 'keys',
      keys: { accessKeyId: 'D', secretAccessKey: 'DS', sessionToken: 'DT' },
      from: 'AWS profile "default" in /h/.aws/config',
    });
  });

  it("puts credential_process between the credentials file and the config file, as botocore's chain does", () => {
    const config =
      '[profile p]\ncredential_process = /bin/get-keys --account 1\naws_access_key_id=C\naws_secret_access_key=CS\n';
    expect(planOfAwsProfile('p', config, '', WHERE).source).toEqual({
      kind: 'process',
      command: '/bin/get-keys --account 1',
      from: 'credential_process of AWS profile "p"',
    });
    expect(
      planOfAwsProfile('p', config, '[p]\naws_access_key_id=K\naws_secret_access_key=KS\n', WHERE).source.kind,
    ).toBe('keys');
  });

  it('follows role_arn through source_profile to the keys, with every role setting, and chains roles', () => {
    const config = [
      '[profile base]',
      'credential_process = /bin/keys',
      '[profile admin]',
      `role_arn = ${ROLE}`,
      'source_profile = base',
      'mfa_serial = arn:aws:iam::123456789012:mfa/alice',
      'external_id = ext-1',
      'duration_seconds = 7200',
      'role_session_name = alice',
      '[profile deep]',
      'role_arn = arn:aws:iam::210987654321:role/read',
      'source_profile = admin',
    ].join('\n');
    const plan = planOfAwsProfile('deep', config, '', WHERE);
    expect(plan.source.kind).toBe('process');
    expect(plan.steps).toEqual([
      {
        kind: 'role',
        roleArn: ROLE,
        roleSessionName: 'alice',
        externalId: 'ext-1',
        durationSeconds: 7200,
        mfaSerial: 'arn:aws:iam::123456789012:mfa/alice',
      },
      {
        kind: 'role',
        roleArn: 'arn:aws:iam::210987654321:role/read',
        roleSessionName: undefined,
        externalId: undefined,
        durationSeconds: undefined,
        mfaSerial: undefined,
      },
    ]);
  });

  it('lets a profile be its own source (its keys, then its role); role_arn in the credentials file counts too', () => {
    const plan = planOfAwsProfile(
      'me',
      '',
      `[me]\naws_access_key_id=K\naws_secret_access_key=KS\nrole_arn=${ROLE}\nsource_profile=me\n`,
      WHERE,
    );
    expect(plan.source).toMatchObject({ kind: 'keys', keys: { accessKeyId: 'K' } });
    expect(plan.steps.map((s) => s.kind === 'role' && s.roleArn)).toEqual([ROLE]);
  });

  it('refuses, saying what to do: a loop, a missing source, SSO, instance metadata, a bad duration, no keys', () => {
    const loop = `[profile a]\nrole_arn=${ROLE}\nsource_profile=b\n[profile b]\nrole_arn=${ROLE}\nsource_profile=a\n`;
    expect(() => planOfAwsProfile('a', loop, '', WHERE)).toThrow(
      'AWS profile "a" loops through source_profile: a → b → a',
    );
    expect(() => planOfAwsProfile('a', `[profile a]\nrole_arn=${ROLE}\nsource_profile=gone\n`, '', WHERE)).toThrow(
      'there is no AWS profile "gone"',
    );
    expect(() => planOfAwsProfile('a', `[profile a]\nrole_arn=${ROLE}\n`, '', WHERE)).toThrow(
      'has role_arn but no source_profile',
    );
    expect(() =>
      planOfAwsProfile('a', `[profile a]\nrole_arn=${ROLE}\ncredential_source=Ec2InstanceMetadata\n`, '', WHERE),
    ).toThrow(/instance or container metadata/);
    expect(() =>
      planOfAwsProfile(
        'p',
        '[profile p]\nsso_session = corp\n',
        '[p]\naws_access_key_id=K\naws_secret_access_key=KS\n',
        WHERE,
      ),
    ).toThrow('AWS profile "p" names sso_session corp, and /h/.aws/config has no [sso-session corp]');
    expect(() =>
      planOfAwsProfile(
        'p',
        '[sso-session corp]\nsso_start_url = https://x/start\n[profile p]\nsso_session = corp\nsso_account_id = 1\nsso_role_name = R\n',
        '',
        WHERE,
      ),
    ).toThrow('[sso-session corp] has no sso_region');
    expect(() => planOfAwsProfile('p', '[profile p]\nweb_identity_token_file = /t\n', '', WHERE)).toThrow(
      /uses web identity/,
    );
    expect(() =>
      planOfAwsProfile(
        'a',
        `[profile a]\nrole_arn=${ROLE}\nsource_profile=a\naws_access_key_id=K\naws_secret_access_key=S\nduration_seconds=60\n`,
        '',
        WHERE,
      ),
    ).toThrow(/duration_seconds = 60: STS takes whole seconds from 900 to 43200/);
    expect(() => planOfAwsProfile('p', '', '[p]\naws_access_key_id=K\n', WHERE)).toThrow(
      /has no aws_access_key_id and aws_secret_access_key in \/h\/.aws\/credentials or \/h\/.aws\/config/,
    );
  });
});

describe('an IAM Identity Center (SSO) profile', () => {
  it('takes start URL and region from its [sso-session] (or itself, the legacy form), before keys; a role may sit on it', () => {
    const config = [
      '[sso-session corp]',
      'sso_start_url = https://corp.awsapps.com/start',
      'sso_region = eu-central-1',
      'sso_registration_scopes = sso:account:access, extra',
      '[profile dev]',
      'sso_session = corp',
      'sso_account_id = 111122223333',
      'sso_role_name = Developer',
      'aws_access_key_id = K',
      'aws_secret_access_key = S',
      '[profile old]',
      'sso_start_url = https://old/start',
      'sso_region = us-east-1',
      'sso_account_id = 1',
      'sso_role_name = R',
      '[profile up]',
      `role_arn = ${ROLE}`,
      'source_profile = dev',
    ].join('\n');
    expect(planOfAwsProfile('dev', config, '', WHERE)).toEqual({
      source: {
        kind: 'sso',
        startUrl: 'https://corp.awsapps.com/start',
        region: 'eu-central-1',
        accountId: '111122223333',
        roleName: 'Developer',
        scopes: ['sso:account:access', 'extra'],
        from: 'IAM Identity Center role of AWS profile "dev"',
      },
      steps: [],
    });
    expect(planOfAwsProfile('old', config, '', WHERE).source).toMatchObject({
      kind: 'sso',
      startUrl: 'https://old/start',
      region: 'us-east-1',
      scopes: [],
    });
    const up = planOfAwsProfile('up', config, '', WHERE);
    expect([up.source.kind, up.steps.length]).toEqual(['sso', 1]);
  });
});

describe("a credential_process line split as Python's shlex.split does", () => {
  it('honours quotes and escapes, never a shell', () => {
    expect(splitCommandLine(`/opt/my tool/x`)).toEqual(['/opt/my', 'tool/x']);
    expect(splitCommandLine(`"/opt/my tool/x" --name 'a b' c\\ d "q\\"uote" $HOME`)).toEqual([
      '/opt/my tool/x',
      '--name',
      'a b',
      'c d',
      'q"uote',
      '$HOME',
    ]);
    expect(splitCommandLine(`"a\\$b"`)).toEqual(['a\\$b']);
    expect(splitCommandLine(`a'b'"c"d`)).toEqual(['abcd']);
    expect(splitCommandLine(`x ''`)).toEqual(['x', '']);
    expect(() => splitCommandLine(`x "open`)).toThrow('no closing quotation');
  });
});
