import { describe, expect, it } from 'vitest';
import { KUBECRED_CLI, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { makeTempHome } from '../support/tempHome.js';

describe('kubecred demo', () => {
  it('runs end to end: broker, API stand-in, token in the keychain, kubectl through the shim', async () => {
    assertBuilt({ shim: true });
    const home = await makeTempHome();
    try {
      const result = await run(process.execPath, [KUBECRED_CLI, 'demo', '--once'], { env: { ...(process.env as Record<string, string>), KUBECRED_DEMO_HOME: home.dir }, timeoutMs: 150_000 });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain('"gitVersion":"v1.33.0"');
      expect(result.stderr).toContain('kubectl reached the API with the token from the keychain');
      expect(result.stderr).toContain('kubectl reached the API with an ID token: the login ran in the browser.');
      expect(result.stderr).toContain('Again, from the cache: no browser this time.');
      expect(result.stderr.match(/\[login\] sso: continue in the browser/g)).toHaveLength(1);
      const token = /demo-[0-9a-f]{32}/.exec(result.stderr + result.stdout);
      expect(token, 'the demo must never print its token').toBeNull();
    } finally {
      await home.cleanup();
    }
  });
});
