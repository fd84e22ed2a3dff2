import { describe, expect, it } from 'vitest';
import { awsSharedFiles, keysOfAwsProfile, parseAwsIni } from '../../src/main/providers/eks/awsSharedProfile.js';

const WHERE = { config: '/h/.aws/config', credentials: '/h/.aws/credentials' };

describe('the aws CLI\'s shared files', () => {
  it('are AWS_CONFIG_FILE and AWS_SHARED_CREDENTIALS_FILE (~ expanded), else ~/.aws', () => {
    expect(awsSharedFiles({}, '/h')).toEqual(WHERE);
    expect(awsSharedFiles({ AWS_CONFIG_FILE: '~/work/aws.cfg', AWS_SHARED_CREDENTIALS_FILE: '/etc/keys' }, '/h')).toEqual({ config: '/h/work/aws.cfg', credentials: '/etc/keys' });
  });

  it('parse as botocore does: comments at line start, key case folded, indented lines belong to the key above', () => {
    const ini = parseAwsIni('# top\n[profile a]\nAWS_Access_Key_ID = AK\n; note\ns3 =\n  aws_secret_access_key = not-a-credential\n[ b ]\nx: 1\n');
    expect(Object.fromEntries(ini.get('profile a')!)).toEqual({ aws_access_key_id: 'AK', s3: '' });
    expect(ini.get('b')?.get('x')).toBe('1');
  });

  it('take a whole set of keys from one file: the credentials file\'s when it has a key id', () => {
    const keys = keysOfAwsProfile('p', '[profile p]\naws_access_key_id=C\naws_secret_access_key=CS\naws_session_token=CT\n', '[p]\naws_access_key_id=K\naws_secret_access_key=KS\n', WHERE);
    expect(keys).toEqual({ accessKeyId: 'K', secretAccessKey: 'KS' });
    expect(keysOfAwsProfile('default', '[default]\naws_access_key_id=D\naws_secret_access_key=DS\naws_security_token=DT\n', '', WHERE)).toEqual({ accessKeyId: 'D', secretAccessKey: 'DS', sessionToken: 'DT' });
  });

  it('refuse what the CLI would not use these keys for, saying why', () => {
    expect(() => keysOfAwsProfile('p', '[profile p]\nsso_session = corp\n', '[p]\naws_access_key_id=K\naws_secret_access_key=KS\n', WHERE)).toThrow(/uses sso_session/);
    expect(() => keysOfAwsProfile('p', '[profile p]\ncredential_process = /bin/get-keys\n', '', WHERE)).toThrow(/credential_process, which Kubecred does not run yet/);
    expect(() => keysOfAwsProfile('p', '[p]\naws_access_key_id=K\n', '', WHERE)).toThrow(/has no aws_access_key_id and aws_secret_access_key in \/h\/.aws\/credentials or \/h\/.aws\/config/);
  });
});
