import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/main/core/brokerError.js';
import { ScreenedAnswers } from '../../../src/main/broker/screenedAnswers.js';
import { loginSecretKind, mfaCodeKind } from '../../../src/main/broker/typedAnswerKinds.js';
import { profileSchema, type ProfileConfig } from '../../../src/shared/config/schema.js';

const MFA = 'arn:aws:iam::123456789012:mfa/alice';
const ROLE = 'arn:aws:iam::123456789012:role/admin';
const eks = (name: string, extra: object) =>
  profileSchema.parse({ name, provider: 'eks', clusterId: 'c', region: 'eu-west-1', ...extra });

// I9: a typed answer reaches the offers only for a configured profile that asks for that kind.
describe('ScreenedAnswers', () => {
  let awsDir: string;
  let env: Record<string, string>;
  const profiles = new Map<string, ProfileConfig>();
  const profileNamed = async (name: string) => {
    const profile = profiles.get(name);
    if (!profile) throw new BrokerError('unknown-profile', `no profile "${name}" in config.yaml`);
    return profile;
  };

  beforeAll(async () => {
    awsDir = await mkdtemp(path.join(tmpdir(), 'kc-aws-'));
    await writeFile(
      path.join(awsDir, 'config'),
      `[profile mfa-role]\nrole_arn = ${ROLE}\nsource_profile = keys\nmfa_serial = ${MFA}\n` +
        `[profile plain-role]\nrole_arn = ${ROLE}\nsource_profile = keys\n` +
        `[profile keys]\naws_access_key_id = AKIDEXAMPLE\naws_secret_access_key = x\n` +
        `[profile process]\ncredential_process = /bin/false\n`,
    );
    env = { AWS_CONFIG_FILE: path.join(awsDir, 'config'), AWS_SHARED_CREDENTIALS_FILE: path.join(awsDir, 'none') };
    for (const profile of [
      eks('own-mfa', { mfaSerial: MFA }),
      eks('aws-mfa', { awsProfile: 'mfa-role' }),
      eks('aws-plain', { awsProfile: 'plain-role' }),
      eks('aws-process', { awsProfile: 'process' }),
      eks('aws-missing', { awsProfile: 'nowhere' }),
      profileSchema.parse({ name: 'static', provider: 'static' }),
      profileSchema.parse({ name: 'plugin', provider: 'exec', command: '/bin/true' }),
    ])
      profiles.set(profile.name, profile);
  });
  afterAll(async () => {
    await rm(awsDir, { recursive: true, force: true });
  });

  const screenedMfa = () => {
    const kept: string[] = [];
    const screened = new ScreenedAnswers(mfaCodeKind(env), { offer: (name) => void kept.push(name) }, profileNamed);
    return { kept, screened };
  };

  it('keeps an MFA code for an eks profile with an MFA device of its own or in its AWS profile', async () => {
    const { kept, screened } = screenedMfa();
    await screened.offer('own-mfa', '123456');
    await screened.offer('aws-mfa', '123456');
    expect(kept).toEqual(['own-mfa', 'aws-mfa']);
  });

  it('refuses an unknown profile with the lookup error, keeping nothing', async () => {
    const { kept, screened } = screenedMfa();
    await expect(screened.offer('made-up', '123456')).rejects.toMatchObject({ code: 'unknown-profile' });
    expect(kept).toEqual([]);
  });

  it.each(['aws-plain', 'aws-process', 'aws-missing', 'static', 'plugin'])(
    'refuses an MFA code for %s, which never asks for one, saying which profiles do',
    async (name) => {
      const { kept, screened } = screenedMfa();
      const refusal = (await screened.offer(name, '123456').catch((error: unknown) => error)) as BrokerError;
      expect(refusal).toBeInstanceOf(BrokerError);
      expect(refusal.code).toBe('bad-request');
      expect(refusal.message).toMatch(new RegExp(`^profile "${name}" \\(provider \\w+\\) never asks for an MFA code`));
      expect(refusal.hint).toBe(
        'type an MFA code only when Kubecred asks for one; only an eks profile with mfaSerial, or whose AWS profile has a role with mfa_serial, asks for one',
      );
      expect(kept).toEqual([]);
    },
  );

  it('keeps a login secret only for a keystone profile', async () => {
    const kept: string[] = [];
    const screened = new ScreenedAnswers(loginSecretKind, { offer: (name) => void kept.push(name) }, profileNamed);
    await expect(screened.offer('plugin', 'pw')).rejects.toThrow('never asks for a login secret');
    profiles.set(
      'keystone',
      profileSchema.parse({ name: 'keystone', provider: 'keystone', authUrl: 'https://keystone.example:5000/v3' }),
    );
    await screened.offer('keystone', 'pw');
    expect(kept).toEqual(['keystone']);
  });
});
