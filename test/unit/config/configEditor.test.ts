import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  addProfile,
  ProfileInvalidError,
  removeProfile,
  updateProfile,
  updateToken,
} from '../../../src/main/config/configEditor.js';
import { parseConfig } from '../../../src/main/config/configLoader.js';
import { profileFromFlags } from '../../../src/main/cli/profileFlags.js';

/** A config.yaml in a temp dir of its own for each test, written with `initial` when given. */
function configFileForEachTest(initial?: string): { readonly dir: string; readonly file: string } {
  const config = { dir: '', file: '' };
  beforeEach(async () => {
    config.dir = await mkdtemp(path.join(os.tmpdir(), 'kc-cfg-'));
    config.file = path.join(config.dir, 'config.yaml');
    if (initial !== undefined) await writeFile(config.file, initial);
  });
  afterEach(() => rm(config.dir, { recursive: true, force: true }));
  return config;
}

describe('addProfile', () => {
  const config = configFileForEachTest();

  it("appends a profile and keeps the user's comments and order", async () => {
    await writeFile(
      config.file,
      '# my clusters\nprofiles:\n  # the old one\n  - name: old\n    provider: static # keychain\n',
    );
    await addProfile(
      config.file,
      profileFromFlags('dev', [
        '--provider',
        'oidc',
        '--issuer',
        'https://id.example',
        '--client-id',
        'kubernetes',
        '--scope',
        'openid',
        '--scope',
        'email',
      ]),
    );
    const text = await readFile(config.file, 'utf8');
    expect(text).toContain('# my clusters');
    expect(text).toContain('# the old one');
    expect(text).toContain('provider: static # keychain');
    const parsed = parseConfig(text, config.file);
    expect(parsed.ok && parsed.config.profiles.map((p) => p.name)).toEqual(['old', 'dev']);
    expect(parsed.ok && parsed.config.profiles[1]).toMatchObject({
      provider: 'oidc',
      clientId: 'kubernetes',
      scopes: ['openid', 'email'],
    });
  });

  it('creates the file when there is none', async () => {
    await addProfile(config.file, { name: 'demo', provider: 'static' });
    const parsed = parseConfig(await readFile(config.file, 'utf8'), config.file);
    expect(parsed.ok && parsed.config.profiles).toEqual([{ name: 'demo', provider: 'static', approval: 'never' }]);
  });

  it('refuses duplicates, invalid profiles, and leaves a broken file untouched', async () => {
    await addProfile(config.file, { name: 'demo', provider: 'static' });
    await expect(addProfile(config.file, { name: 'demo', provider: 'static' })).rejects.toThrow('already exists');
    await expect(
      addProfile(config.file, profileFromFlags('e', ['--provider', 'eks', '--cluster-id', 'c', '--region', 'mars 1'])),
    ).rejects.toThrow('region: an AWS region is one DNS label, like us-east-1');
    await writeFile(config.file, 'profiles: [oops\n');
    await expect(addProfile(config.file, { name: 'x', provider: 'static' })).rejects.toThrow(
      'cannot be changed while it is invalid',
    );
    expect(await readFile(config.file, 'utf8')).toBe('profiles: [oops\n');
  });

  it('says what is wrong in plain words, and how to change a profile that exists (new-user finding 13)', async () => {
    await addProfile(config.file, { name: 'sso', provider: 'oidc', issuer: 'https://id.example', clientId: 'k' });
    await expect(
      addProfile(config.file, { name: 'o', provider: 'oidc', issuer: 'id.example.com', clientId: 'k' }),
    ).rejects.toThrow(
      'the new profile is invalid: issuer "id.example.com" is not a full URL: write it like https://id.example.com',
    );
    await expect(
      addProfile(config.file, { name: 'o', provider: 'oidc', issuer: 'https://id.example' }),
    ).rejects.toThrow('the new profile is invalid: clientId is missing');
    await expect(updateProfile(config.file, 'sso', { flow: 'sideways' })).rejects.toThrow(
      'the profile is invalid: flow "sideways" is not one of auto, browser, device',
    );
    await expect(addProfile(config.file, { name: 'sso', provider: 'static' })).rejects.toMatchObject({
      hint: expect.stringContaining('kubecred profile set sso --field value'),
    });
  });

  it('refuses secrets given as flags', () => {
    expect(() => profileFromFlags('k', ['--provider', 'keystone', '--password', 'hunter2'])).toThrow(
      'secrets never go in arguments',
    );
  });

  it('maps exec flags to the kubeconfig exec fields', () => {
    expect(
      profileFromFlags('w', [
        '--provider',
        'exec',
        '--command',
        '/bin/plugin',
        '--arg',
        'get-token',
        '--arg',
        '--x',
        '--env',
        'A=b=c',
        '--api-version',
        'client.authentication.k8s.io/v1beta1',
      ]),
    ).toEqual({
      name: 'w',
      provider: 'exec',
      command: '/bin/plugin',
      args: ['get-token', '--x'],
      env: [{ name: 'A', value: 'b=c' }],
      apiVersion: 'client.authentication.k8s.io/v1beta1',
    });
  });
});

describe('removeProfile', () => {
  const config = configFileForEachTest();

  it('takes out one profile and keeps the rest, with their comments', async () => {
    await writeFile(
      config.file,
      '# my clusters\nprofiles:\n  # the old one\n  - name: old\n    provider: static # keychain\n  - name: gone\n    provider: static\n  - name: last\n    provider: exec\n    command: /bin/true\n',
    );
    await removeProfile(config.file, 'gone');
    const text = await readFile(config.file, 'utf8');
    expect(text).toContain('# my clusters');
    expect(text).toContain('provider: static # keychain');
    const parsed = parseConfig(text, config.file);
    expect(parsed.ok && parsed.config.profiles.map((p) => p.name)).toEqual(['old', 'last']);
  });

  it('says so when there is no such profile, and leaves a broken file untouched', async () => {
    await writeFile(config.file, 'profiles:\n  - { name: a, provider: static }\n');
    await expect(removeProfile(config.file, 'b')).rejects.toMatchObject({ code: 'unknown-profile' });
    await expect(removeProfile(path.join(config.dir, 'none.yaml'), 'a')).rejects.toMatchObject({
      code: 'unknown-profile',
    });
    await writeFile(config.file, 'profiles: [oops\n');
    await expect(removeProfile(config.file, 'a')).rejects.toThrow('cannot be changed while it is invalid');
    expect(await readFile(config.file, 'utf8')).toBe('profiles: [oops\n');
  });

  it('names the field the schema refuses, for the form', async () => {
    await expect(
      addProfile(config.file, { name: 'o', provider: 'oidc', issuer: 'not a url', clientId: 'k' }),
    ).rejects.toMatchObject({ field: 'issuer' });
    await expect(addProfile(config.file, { name: 'Bad Name', provider: 'static' })).rejects.toBeInstanceOf(
      ProfileInvalidError,
    );
  });
});

describe('updateProfile', () => {
  const original =
    '# my clusters\nprofiles:\n  # single sign-on\n  - name: sso\n    provider: oidc\n    issuer: https://id.example # the company IdP\n    clientId: kubernetes\n    scopes: [openid, email] # added by hand\n  - name: lab\n    provider: static\n';
  const config = configFileForEachTest(original);

  it('changes the named fields, keeps the others and every comment', async () => {
    const updated = await updateProfile(config.file, 'sso', { issuer: 'https://login.example', clientId: 'kubectl' });
    expect(updated).toMatchObject({
      name: 'sso',
      issuer: 'https://login.example',
      clientId: 'kubectl',
      scopes: ['openid', 'email'],
    });
    const text = await readFile(config.file, 'utf8');
    expect(text).toContain('# my clusters');
    expect(text).toContain('# single sign-on');
    expect(text).toContain('issuer: https://login.example # the company IdP');
    expect(text).toContain('scopes: [ openid, email ] # added by hand');
    const parsed = parseConfig(text, config.file);
    expect(parsed.ok && parsed.config.profiles.map((p) => p.name)).toEqual(['sso', 'lab']);
  });

  it('removes a field given as null', async () => {
    await updateProfile(config.file, 'sso', { scopes: null, name: 'sso' });
    const parsed = parseConfig(await readFile(config.file, 'utf8'), config.file);
    expect(parsed.ok && parsed.config.profiles[0]).toMatchObject({ name: 'sso', provider: 'oidc' });
    expect(await readFile(config.file, 'utf8')).not.toContain('scopes');
  });

  it('names the field the schema refuses, refuses a rename or an unknown profile, and writes nothing', async () => {
    const invalid = await updateProfile(config.file, 'sso', { issuer: 'not a url' }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ProfileInvalidError);
    expect((invalid as ProfileInvalidError).field).toBe('issuer');
    await expect(updateProfile(config.file, 'sso', { name: 'lab' })).rejects.toMatchObject({ field: 'name' });
    await expect(updateProfile(config.file, 'nope', { clientId: 'x' })).rejects.toMatchObject({
      code: 'unknown-profile',
    });
    expect(await readFile(config.file, 'utf8')).toBe(original);
  });
});

describe('updateToken', () => {
  const original =
    '# tokens\ntokens:\n  - name: yubikey # the blue one\n    module: /usr/lib/opensc-pkcs11.so\n    label: PIV\n    pinGrace: 15m # short\nprofiles:\n  - name: dev\n    provider: static\n    approval: always\n';
  const config = configFileForEachTest(original);

  it('changes pinGrace and keeps every comment', async () => {
    await updateToken(config.file, 'yubikey', { pinGrace: '1h' });
    const text = await readFile(config.file, 'utf8');
    expect(text).toContain('pinGrace: 1h # short');
    expect(text).toContain('- name: yubikey # the blue one');
    expect(text).toContain('# tokens');
    const parsed = parseConfig(text, config.file);
    expect(parsed.ok && parsed.config.tokens[0]?.pinGrace).toBe('1h');
  });

  it('refuses an invalid value (naming the field), a rename or an unknown token, and writes nothing', async () => {
    await expect(updateToken(config.file, 'yubikey', { pinGrace: 'soon' })).rejects.toMatchObject({
      field: 'pinGrace',
    });
    await expect(updateToken(config.file, 'yubikey', { name: 'other' })).rejects.toBeInstanceOf(ProfileInvalidError);
    await expect(updateToken(config.file, 'nope', { pinGrace: '1h' })).rejects.toThrow(/no token "nope"/);
    expect(await readFile(config.file, 'utf8')).toBe(original);
  });

  it("sets a profile's approval policy through updateProfile", async () => {
    await updateProfile(config.file, 'dev', { approval: 'once-per-process' });
    const parsed = parseConfig(await readFile(config.file, 'utf8'), config.file);
    expect(parsed.ok && parsed.config.profiles[0]?.approval).toBe('once-per-process');
    await expect(updateProfile(config.file, 'dev', { approval: 'sometimes' })).rejects.toMatchObject({
      field: 'approval',
    });
  });
});
