import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

// New-user finding N16: a mistyped profile name got no "did you mean", and `secret set` read
// stdin before it looked at the name, then gave an example naming another profile.
describe('the CLI given a mistyped profile name', () => {
  let home: TempHome;
  let broker: TestBroker;
  const { cli } = callersFor(() => home.dir);

  beforeAll(async () => {
    assertBuilt();
    home = await makeTempHome();
    await writeConfig(
      home.dir,
      'profiles:\n  - name: demo\n    provider: static\n  - name: sso\n    provider: oidc\n    issuer: https://id.example.com\n    clientId: kubectl\n',
    );
    broker = await startTestBroker(home.dir);
  });
  afterAll(async () => {
    await broker?.stop();
    await home?.cleanup();
  });

  it.each([
    [['login', 'dmeo']],
    [['secret', 'list', 'dmeo']],
    [['profile', 'rm', 'dmeo']],
    [['guard', 'dmeo']],
    [['enroll', 'dmeo', '--renew', '--context', 'lab']],
  ])('kubecred %j names the profile it likely meant', async (args) => {
    const result = await cli(args);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no profile "dmeo"');
    expect(result.stderr).toContain('Did you mean "demo"?');
  });

  it('kubecred profile set with a typo names the profile it likely meant', async () => {
    const result = await cli(['profile', 'set', 'dmeo', '--issuer', 'https://id.example.com']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('Did you mean "demo"?');
  });

  it('kubecred secret set checks the name before it reads the value', async () => {
    // As the person ran it (stdin empty): the name is what is wrong, not the missing value.
    const result = await cli(['secret', 'set', 'dmeo', 'token'], '');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no profile "dmeo"');
    expect(result.stderr).toContain('Did you mean "demo"?');
    expect(result.stderr).not.toContain('no value on stdin');
    expect((await cli(['secret', 'list', 'demo'])).stdout).toBe('');
  });

  it('kubecred secret set checks the field before it reads the value', async () => {
    const result = await cli(['secret', 'set', 'demo', 'tokn'], 'never-read-value');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('never reads a secret named "tokn"');
    expect(result.stderr).toContain('token');
  });

  it("kubecred secret set with nothing on stdin gives an example with the person's own profile and field", async () => {
    const result = await cli(['secret', 'set', 'sso', 'client-secret'], '');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('kubecred secret set sso client-secret < client-secret.txt');
  });
});
