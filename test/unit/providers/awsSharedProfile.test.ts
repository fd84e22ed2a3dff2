import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { awsSharedFiles, parseAwsIni } from '../../../src/main/providers/eks/awsSharedProfile.js';

// The files are this machine's: its own path rules (backslashes on Windows).
const WHERE = { config: path.join('/h', '.aws', 'config'), credentials: path.join('/h', '.aws', 'credentials') };

describe("the aws CLI's shared files", () => {
  it('are AWS_CONFIG_FILE and AWS_SHARED_CREDENTIALS_FILE (~ expanded), else ~/.aws', () => {
    expect(awsSharedFiles({}, '/h')).toEqual(WHERE);
    expect(
      awsSharedFiles({ AWS_CONFIG_FILE: '~/work/aws.cfg', AWS_SHARED_CREDENTIALS_FILE: '/etc/keys' }, '/h'),
    ).toEqual({ config: path.join('/h', 'work', 'aws.cfg'), credentials: '/etc/keys' });
  });

  it('parse as botocore does: comments at line start, key case folded, indented lines belong to the key above', () => {
    const ini = parseAwsIni(
      '# top\n[profile a]\nAWS_Access_Key_ID = AK\n; note\ns3 =\n  aws_secret_access_key = not-a-credential\n[ b ]\nx: 1\n',
    );
    expect(Object.fromEntries(ini.get('profile a')!)).toEqual({ aws_access_key_id: 'AK', s3: '' });
    expect(ini.get('b')?.get('x')).toBe('1');
  });
});
