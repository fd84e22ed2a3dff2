import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsProfilesCheck, awsProfilesInUse } from '../../../src/main/doctor/checks/awsProfilesCheck.js';
import { readAwsProfilePlan } from '../../../src/main/providers/eks/awsProfilePlan.js';
import type { KubecredConfig } from '../../../src/shared/config/schema.js';

const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY';

describe('doctor: the AWS profiles eks profiles take their keys from', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'kc-aws-'));
    await writeFile(
      path.join(dir, 'credentials'),
      `[team]\naws_access_key_id = AKIAEXAMPLE\naws_secret_access_key = ${SECRET}\n`,
    );
    await writeFile(
      path.join(dir, 'config'),
      '[profile admin]\nrole_arn = arn:aws:iam::123456789012:role/admin\nsource_profile = team\nmfa_serial = arn:aws:iam::123456789012:mfa/alice\n[profile sso]\nsso_session = corp\n',
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('lists only eks profiles with an awsProfile', () => {
    const config = {
      profiles: [
        { name: 'a', provider: 'eks', awsProfile: 'team' },
        { name: 'b', provider: 'eks' },
        { name: 'c', provider: 'static' },
      ],
    } as unknown as KubecredConfig;
    expect(awsProfilesInUse(config)).toEqual([{ profile: 'a', awsProfile: 'team' }]);
  });

  it('describes keys and a role chain, refuses a broken SSO profile and a missing profile with what to do, and never shows a key', async () => {
    const env = {
      AWS_CONFIG_FILE: path.join(dir, 'config'),
      AWS_SHARED_CREDENTIALS_FILE: path.join(dir, 'credentials'),
    };
    const check = awsProfilesCheck(
      [
        { profile: 'prod', awsProfile: 'team' },
        { profile: 'ops', awsProfile: 'admin' },
        { profile: 'typo', awsProfile: 'tema' },
        { profile: 'corp', awsProfile: 'sso' },
      ],
      (name) => readAwsProfilePlan(name, env, dir),
    );
    const findings = await check.run();
    expect(findings.map((f) => [f.title, f.status])).toEqual([
      ['AWS profile team (prod)', 'ok'],
      ['AWS profile admin (ops)', 'ok'],
      ['AWS profile tema (typo)', 'fail'],
      ['AWS profile sso (corp)', 'fail'],
    ]);
    expect(findings[0]!.detail).toBe(`keys of AWS profile "team" in ${path.join(dir, 'credentials')}`);
    expect(findings[1]!.detail).toBe(
      `keys of AWS profile "team" in ${path.join(dir, 'credentials')} → role arn:aws:iam::123456789012:role/admin (MFA)`,
    );
    expect(findings[2]!.detail).toMatch(/there is no AWS profile "tema"/);
    expect(findings[2]!.fix).toBe('check the name with: aws configure list-profiles');
    expect(findings[3]!.detail).toBe(
      `AWS profile "sso" names sso_session corp, and ${path.join(dir, 'config')} has no [sso-session corp]`,
    );
    expect(JSON.stringify(findings)).not.toContain(SECRET);
  });
});
