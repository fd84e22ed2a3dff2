import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv } from '../support/broker.js';
import type { BrowserDriver } from '../support/browserDriver.js';
import { newestKubectl, runKubectl } from '../support/kubectl.js';
import type { TestIssuer } from '../support/oidcIssuer.js';
import type { TempHome } from '../support/tempHome.js';
import { startOidcKubectlWorld, type OidcKubectlWorld } from '../support/oidcKubectlWorld.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';

describe('kubectl with an OIDC profile: the first call logs in through the browser, the next come from the cache', () => {
  let home: TempHome;
  let issuer: TestIssuer;
  let browser: BrowserDriver;
  let kubeconfig: string;
  let browserStandIn: RecordingBrowser;
  const kubectl = newestKubectl();

  let world: OidcKubectlWorld | undefined;

  beforeAll(async () => {
    world = await startOidcKubectlWorld({
      profileLines: ['scopes: [openid, offline_access]'],
      brokerEnv: async (dir) => {
        browserStandIn = await recordingBrowser(dir);
        return { KUBECRED_BROWSER: browserStandIn.command };
      },
    });
    ({ home, issuer, browser, kubeconfig } = world);
  }, 120_000);

  afterAll(async () => {
    await world?.close();
  });

  it('logs in through the browser on the first kubectl call', async () => {
    const call = runKubectl(kubectl.path, ['get', '--raw', '/version'], { kubeconfig });
    // The authorization URL (its state, nonce and PKCE challenge) never reaches the browser's argv.
    const argument = await browserStandIn.argument(0);
    expect(argument).toMatch(/^file:\/\/.*\.html$/);
    const authorization = new URL(await browserStandIn.target(0));
    expect(argument).not.toContain(authorization.searchParams.get('state'));
    const page = await browser.signIn(argument, {
      screenshots: { dir: path.resolve('test-results', 'screenshots'), prefix: 'kubectl-oidc' },
    });
    expect(page).toContain('signed in');
    const result = await call;
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).gitVersion).toBe('v1.33.0');
    expect(issuer.counts.authorizations).toBe(1);
    // It now holds a refresh token: the tray need not warn before this credential expires.
    const { run } = await import('../support/run.js');
    const { KUBECRED_CLI } = await import('../support/repo.js');
    const status = JSON.parse(
      (await run(process.execPath, [KUBECRED_CLI, 'status', '-o', 'json'], { env: brokerEnv(home.dir) })).stdout,
    ) as { profiles: Array<{ name: string; state: string; silentRefresh?: boolean }> };
    // Who signed in is shown (B7: a login someone else completed in your name is visible).
    expect(status.profiles.find((p) => p.name === 'sso')).toMatchObject({
      state: 'ready',
      silentRefresh: true,
      account: 'alice',
    });
    const table = (await run(process.execPath, [KUBECRED_CLI, 'status'], { env: brokerEnv(home.dir) })).stdout;
    expect(table).toMatch(/^sso\s+oidc\s+ready\s+alice\s/m);
  });

  it('serves the next calls from the cache: no browser, no request to the issuer', async () => {
    issuer.resetCounts();
    for (let i = 0; i < 3; i++) {
      const result = await runKubectl(kubectl.path, ['get', '--raw', '/version'], { kubeconfig });
      expect(result.code, result.stderr).toBe(0);
    }
    expect(issuer.counts.authorizations).toBe(0);
    expect(Object.values(issuer.counts.grants).reduce((a, b) => a + b, 0)).toBe(0);
    expect(await browserStandIn.opened()).toHaveLength(1);
  });

  it('after kubecred logout, the next call needs a new login; a refresh token never reaches disk in plaintext', async () => {
    const { run } = await import('../support/run.js');
    const { KUBECRED_CLI } = await import('../support/repo.js');
    const out = await run(process.execPath, [KUBECRED_CLI, 'logout', 'sso'], { env: brokerEnv(home.dir) });
    expect(out.code, out.stderr).toBe(0);
    const call = runKubectl(kubectl.path, ['get', '--raw', '/version'], { kubeconfig });
    await browser.signIn(await browserStandIn.nth(1));
    expect((await call).code).toBe(0);
    const leaks = await run('grep', [
      '-r',
      '-l',
      '-a',
      '-E',
      'eyJ[A-Za-z0-9_-]{20,}\\.',
      home.dir,
      '--exclude-dir=issuer',
    ]);
    expect(leaks.stdout.trim()).toBe('');
  });
});
