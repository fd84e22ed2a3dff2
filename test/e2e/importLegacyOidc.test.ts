import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeychainStore } from '../../src/main/secrets/keychain/keychainStore.js';
import type { ApiStandIn } from '../support/apiServer.js';
import { startIdTokenApi } from '../support/idTokenApi.js';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { startBrowser, type BrowserDriver } from '../support/browserDriver.js';
import { V1_EXEC_INFO } from '../support/callers.js';
import { newestKubectl, runKubectl } from '../support/kubectl.js';
import { startTestIssuer, type TestIssuer } from '../support/oidcIssuer.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { KUBECRED_CLI, NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

/**
 * A kubeconfig from before kubectl 1.26 (`auth-provider: oidc`) holds a live refresh token and
 * ID token. After `kubecred import`, kubectl keeps working through Kubecred at once, on that very
 * ID token (new user review 4, N3: it was dropped, and the context broke), then on that very
 * refresh token: no new browser login, and both are gone from the file.
 */
describe('import of a legacy auth-provider: oidc user, end to end against a real issuer', () => {
  let seedHome: TempHome;
  let home: TempHome;
  let issuer: TestIssuer;
  let api: ApiStandIn;
  let broker: TestBroker;
  let browser: BrowserDriver;
  let browserStandIn: RecordingBrowser;
  let refreshToken: string;
  let idToken: string;
  let original: string;
  const kubectl = newestKubectl();

  beforeAll(async () => {
    assertBuilt({ shim: true });
    [seedHome, home] = await Promise.all([makeTempHome(), makeTempHome()]);
    issuer = await startTestIssuer({ dir: path.join(seedHome.dir, 'issuer') });
    api = await startIdTokenApi(issuer, path.join(home.dir, 'api-pki'));

    // The refresh token a user's old kubeconfig would hold: minted by a real login in chromium.
    browserStandIn = await recordingBrowser(seedHome.dir);
    browser = await startBrowser();
    await writeConfig(
      seedHome.dir,
      `profiles:\n  - name: legacy-seed\n    provider: oidc\n    issuer: ${issuer.issuer}\n    clientId: ${issuer.clientId}\n    caFile: ${issuer.caFile}\n    scopes: [openid, offline_access]\n`,
    );
    const seedBroker = await startTestBroker(seedHome.dir, { KUBECRED_BROWSER: browserStandIn.command });
    try {
      const login = run(NATIVE_SHIM, ['credential', 'legacy-seed'], {
        env: { ...brokerEnv(seedHome.dir), KUBERNETES_EXEC_INFO: V1_EXEC_INFO },
      });
      await browser.signIn(await browserStandIn.nth(0));
      const signedIn = await login;
      expect(signedIn.code).toBe(0);
      // The ID token that old kubeconfig would hold beside it, valid for the issuer's hour.
      idToken = (JSON.parse(signedIn.stdout) as { status: { token: string } }).status.token;
    } finally {
      await seedBroker.stop();
    }
    const keychain = new KeychainStore();
    refreshToken = (await keychain.get({ profile: 'legacy-seed', field: 'refresh-token' }))!;
    expect(refreshToken).toBeTruthy();
    await keychain.delete({ profile: 'legacy-seed', field: 'refresh-token' });

    broker = await startTestBroker(home.dir, { KUBECRED_BROWSER: browserStandIn.command });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await broker?.stop();
    await api?.close();
    await issuer?.stop();
    await home?.cleanup();
    await seedHome?.cleanup();
  });

  const kubeconfig = () => path.join(home.dir, 'legacy-kubeconfig.yaml');

  it('moves the ID and refresh tokens into Kubecred, and kubectl keeps working without a new login', async () => {
    const kubeconfig = path.join(home.dir, 'legacy-kubeconfig.yaml');
    original = [
      '# written by kubectl 1.24 for our SSO',
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '  - name: sso-cluster',
      '    cluster:',
      `      server: ${api.url}`,
      `      certificate-authority-data: ${Buffer.from(api.caPem).toString('base64')}`,
      'contexts:',
      '  - name: sso',
      '    context: {cluster: sso-cluster, user: alice}',
      'current-context: sso',
      'users:',
      '  - name: alice',
      '    user:',
      '      auth-provider:',
      '        name: oidc',
      '        config:',
      `          idp-issuer-url: ${issuer.issuer}`,
      `          client-id: ${issuer.clientId}`,
      `          idp-certificate-authority: ${issuer.caFile}`,
      `          refresh-token: ${refreshToken}`,
      `          id-token: ${idToken}`,
      '',
    ].join('\n');
    await writeFile(kubeconfig, original, { mode: 0o600 });

    const imported = await run(process.execPath, [KUBECRED_CLI, 'import', '--kubeconfig', kubeconfig], {
      env: brokerEnv(home.dir),
    });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout + imported.stderr).not.toContain(refreshToken);
    expect(imported.stdout + imported.stderr).not.toContain(idToken);
    const rewritten = await readFile(kubeconfig, 'utf8');
    expect(rewritten).not.toContain(refreshToken);
    expect(rewritten).not.toContain(idToken);
    expect(rewritten).toContain('# written by kubectl 1.24 for our SSO');
    expect(rewritten).toMatch(/args:\s*\n\s*- credential/);

    issuer.resetCounts();
    const result = await runKubectl(kubectl.path, ['get', '--raw', '/version'], {
      kubeconfig,
      env: { KUBECRED_HOME: home.dir },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).gitVersion).toBeTruthy();
    // Served by the imported ID token: the issuer was not asked at all.
    expect(issuer.counts.grants.refresh_token ?? 0).toBe(0);
    expect(issuer.counts.authorizations).toBe(0);
    // A refresh uses the imported refresh token, not a new login.
    const refreshed = await run(process.execPath, [KUBECRED_CLI, 'refresh', 'alice'], { env: brokerEnv(home.dir) });
    expect(refreshed.code, refreshed.stderr).toBe(0);
    expect(issuer.counts.grants.refresh_token).toBe(1);
    const again = await runKubectl(kubectl.path, ['get', '--raw', '/version'], {
      kubeconfig,
      env: { KUBECRED_HOME: home.dir },
    });
    expect(again.code, again.stderr).toBe(0);
    expect(issuer.counts.authorizations).toBe(0);
    expect(await browserStandIn.opened()).toHaveLength(1);
  }, 120_000);

  // Issue 26, item 7 (N6): the issuer rotated the refresh token when Kubecred used it; undo must
  // not put the dead one back and delete the live one.
  it('import --undo --plaintext writes back the refresh token Kubecred holds now, which the issuer still honours', async () => {
    expect(await issuer.isRefreshTokenActive(refreshToken)).toBe(false);
    const undone = await run(process.execPath, [KUBECRED_CLI, 'import', '--undo', '--plaintext'], {
      env: brokerEnv(home.dir),
    });
    expect(undone.code, undone.stderr).toBe(0);
    expect(undone.stderr).toContain('wrote back the refresh token Kubecred holds now for user alice');
    const restored = await readFile(kubeconfig(), 'utf8');
    const written = /refresh-token: (\S+)/.exec(restored)?.[1];
    expect(written).toBeTruthy();
    expect(written).not.toBe(refreshToken);
    expect(await issuer.isRefreshTokenActive(written!)).toBe(true);
    // N9: the file as it was, byte for byte, but for the live refresh token in the old one's place.
    expect(restored).toBe(original.replace(refreshToken, written!));
    expect(undone.stdout + undone.stderr).not.toContain(written!);
  }, 60_000);
});
