import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

// New-user findings 9 and 13: no way to change or remove a profile from the CLI; an import
// undone by hand left profiles and keychain items behind.
describe('kubecred profile set and rm', () => {
  let home: TempHome;
  let broker: TestBroker;
  const { cli, credential } = callersFor(() => home.dir);
  const config = () => readFile(path.join(home.dir, 'config.yaml'), 'utf8');

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    await writeConfig(
      home.dir,
      '# my profiles\nprofiles:\n  - name: sso # the company IdP\n    provider: oidc\n    issuer: https://id.example.com\n    clientId: kubernetes\n  - name: ci\n    provider: static\n',
    );
    broker = await startTestBroker(home.dir);
  });
  afterAll(async () => {
    await broker?.stop();
    await home?.cleanup();
  });

  it('set changes the named fields and keeps comments; --unset takes one out; an invalid value changes nothing', async () => {
    const set = await cli([
      'profile',
      'set',
      'sso',
      '--ca-file',
      '/etc/ssl/corp-ca.pem',
      '--scope',
      'openid',
      '--scope',
      'groups',
    ]);
    expect(set.code, set.stderr).toBe(0);
    let text = await config();
    expect(text).toContain('caFile: /etc/ssl/corp-ca.pem');
    expect(text).toContain('# the company IdP');
    const unset = await cli(['profile', 'set', 'sso', '--unset', 'caFile']);
    expect(unset.code, unset.stderr).toBe(0);
    text = await config();
    expect(text).not.toContain('caFile');
    const bad = await cli(['profile', 'set', 'sso', '--issuer', 'not a url']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/issuer/);
    expect(await config()).toBe(text);
  });

  it('rm removes the profile and its secrets from the secret store', async () => {
    expect((await cli(['secret', 'set', 'ci', 'token'], 'ci-token-to-remove')).code).toBe(0);
    expect((await credential('ci')).stdout).toContain('ci-token-to-remove');
    const removed = await cli(['profile', 'rm', 'ci']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stderr).toContain('and its secrets (token) from the secret store');
    expect(await config()).not.toMatch(/name: ci\b/);
    // Added again under the same name, it starts empty: nothing was left in the keychain.
    await writeConfig(home.dir, `${await config()}  - name: ci\n    provider: static\n`);
    const again = await credential('ci');
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).not.toContain('ci-token-to-remove');
  });
});
