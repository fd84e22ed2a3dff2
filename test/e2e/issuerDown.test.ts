import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { startBrowser, type BrowserDriver } from '../support/browserDriver.js';
import { V1_EXEC_INFO } from '../support/callers.js';
import { startTestIssuer, type TestIssuer } from '../support/oidcIssuer.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { KUBECRED_CLI, NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

// Short-lived ID tokens, so "until expiry" fits in a test: usable for ~90% of their life.
const ID_TOKEN_TTL_SECONDS = 20;

describe('the OIDC issuer goes down after the login', () => {
  let home: TempHome;
  let issuer: TestIssuer;
  let broker: TestBroker;
  let browser: BrowserDriver;
  let browserStandIn: RecordingBrowser;
  const credential = () =>
    run(NATIVE_SHIM, ['credential', 'sso'], {
      env: { ...brokerEnv(home.dir), KUBERNETES_EXEC_INFO: V1_EXEC_INFO },
      timeoutMs: 60_000,
    });

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    issuer = await startTestIssuer({ dir: path.join(home.dir, 'issuer'), idTokenTtlSeconds: ID_TOKEN_TTL_SECONDS });
    browserStandIn = await recordingBrowser(home.dir);
    await writeConfig(
      home.dir,
      `profiles:\n  - name: sso\n    provider: oidc\n    issuer: ${issuer.issuer}\n    clientId: ${issuer.clientId}\n    caFile: ${issuer.caFile}\n    scopes: [openid, offline_access]\n`,
    );
    broker = await startTestBroker(home.dir, { KUBECRED_BROWSER: browserStandIn.command });
    browser = await startBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await broker?.stop();
    await issuer?.stop().catch(() => undefined);
    await home?.cleanup();
  });

  it('serves the cached credential until it expires, then fails with one clear line', async () => {
    const first = credential();
    await browser.signIn(await browserStandIn.nth(0));
    const signedIn = await first;
    expect(signedIn.code, signedIn.stderr).toBe(0);
    const token = (JSON.parse(signedIn.stdout) as { status: { token: string; expirationTimestamp: string } }).status;
    const expiresAt = Date.parse(token.expirationTimestamp);

    await issuer.stop();
    // New user review 4, N2: a refresh while the issuer is down says why, and loses nothing:
    // the cached ID token is still served, with no login in between.
    const refresh = await run(KUBECRED_CLI, ['refresh', 'sso'], { env: brokerEnv(home.dir), timeoutMs: 60_000 });
    expect(refresh.code).toBe(1);
    expect(refresh.stderr).toMatch(
      /refreshing the ID token for profile "sso" failed: cannot reach https:\/\/127\.0\.0\.1:\d+/,
    );
    expect(refresh.stderr + refresh.stdout).not.toContain(token.token);
    const afterRefresh = await credential();
    expect(afterRefresh.code, afterRefresh.stderr).toBe(0);
    expect(JSON.parse(afterRefresh.stdout).status.token).toBe(token.token);
    const status = await run(KUBECRED_CLI, ['status', '-o', 'json'], { env: brokerEnv(home.dir), timeoutMs: 30_000 });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).not.toContain('ECONNREFUSED');
    expect(await browserStandIn.opened()).toHaveLength(1);
    // Cached: no issuer needed, however often kubectl asks, including inside the refresh-ahead window.
    while (Date.now() < expiresAt - 4_000) {
      const cached = await credential();
      expect(cached.code, cached.stderr).toBe(0);
      expect(JSON.parse(cached.stdout).status.token).toBe(token.token);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now() + 500)));
    const started = Date.now();
    const expired = await credential();
    expect(expired.code).toBe(1);
    expect(expired.stdout).toBe('');
    expect(expired.stderr.trim().split('\n'), expired.stderr).toHaveLength(1);
    expect(expired.stderr).toMatch(
      /^kubecred: refreshing the ID token for profile "sso" failed: cannot reach https:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED: nothing listens on that port\)/,
    );
    expect(expired.stderr).not.toContain(token.token);
    // A dead IdP is reported at once, not after a login that can never finish.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(broker.process.exitCode).toBeNull();
  }, 120_000);
});
