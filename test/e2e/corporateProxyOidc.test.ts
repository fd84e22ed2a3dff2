import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDaemonLog, writeConfig } from '../support/broker.js';
import type { BrowserDriver } from '../support/browserDriver.js';
import { callersFor } from '../support/callers.js';
import { canRunCorporateProxy, type CorporateProxy } from '../support/corporateProxy.js';
import { proxyUrlWith, startIssuerBehindProxy } from '../support/issuerBehindProxy.js';
import type { TestIssuer } from '../support/oidcIssuer.js';
import { loginAndRefreshThroughProxy } from '../support/proxiedOidcLogin.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { assertBuilt } from '../support/repo.js';
import { expectNoSecretIn, proxyPasswordForms } from '../support/secretAbsence.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const ISSUER_HOST = 'issuer.kubecred.test';
const USER = 'alice';
// The proxy's password (tinyproxy takes letters, digits and -._ only): it goes to the proxy, and nowhere else.
const PASSWORD = 'c0rp-proxy.pw_7f3a';

/**
 * Issue 43: the broker's OIDC login and refresh behind a company's proxy. The issuer's name
 * resolves for the proxy only (tinyproxy with its own /etc/hosts), so the broker reaches it
 * through the proxy or not at all. Judged from the far side: the proxy's log names the issuer,
 * the issuer counts the grants. Three ways it fails, each in words that name the proxy.
 */
describe.runIf(canRunCorporateProxy())('OIDC behind a corporate proxy (tinyproxy, Basic auth)', () => {
  let home: TempHome;
  let issuer: TestIssuer;
  let proxy: CorporateProxy;
  let browserStandIn: RecordingBrowser;
  let browser: BrowserDriver | undefined;
  let env: Record<string, string> = {};
  const { cli } = callersFor(
    () => home.dir,
    () => ({ KUBECRED_BROWSER: browserStandIn.command, ...env }),
  );
  const withProxy = async (next: Record<string, string>) => {
    await cli(['stop']);
    env = next;
  };
  const proxied = () => proxyUrlWith(proxy, USER, PASSWORD);

  beforeAll(async () => {
    assertBuilt();
    home = await makeTempHome();
    ({ issuer, proxy } = await startIssuerBehindProxy(home.dir, ISSUER_HOST, { user: USER, password: PASSWORD }));
    browserStandIn = await recordingBrowser(home.dir);
    await writeConfig(
      home.dir,
      `profiles:\n  - name: sso\n    provider: oidc\n    issuer: ${issuer.issuer}\n    clientId: ${issuer.clientId}\n    caFile: ${issuer.caFile}\n    scopes: [openid, offline_access]\n`,
    );
  }, 120_000);

  afterAll(async () => {
    await cli(['stop']);
    await browser?.close();
    await proxy?.stop();
    await issuer?.stop().catch(() => undefined);
    await home?.cleanup();
  });

  it('without the proxy the issuer cannot be reached at all (no way around it)', async () => {
    await withProxy({});
    const login = await cli(['login', 'sso']);
    expect(login.code).toBe(1);
    expect(login.stderr).toContain('ENOTFOUND');
    expect(login.stderr).toContain('direct (no HTTPS_PROXY set)');
  });

  it('a proxy that wants a password and got none: 407, named, with the setting to change', async () => {
    await withProxy({ HTTPS_PROXY: proxy.url });
    const login = await cli(['login', 'sso']);
    expect(login.code).toBe(1);
    expect(login.stderr).toContain(`the proxy ${proxy.url} (from HTTPS_PROXY) answered 407`);
    expect(login.stderr).toContain('http://user:password@host:port');
  });

  it('a wrong proxy password: refused, named, where to correct it; the wrong password not shown', async () => {
    await withProxy({ HTTPS_PROXY: `http://${USER}:wrong-pw-4e1@${new URL(proxy.url).host}` });
    const login = await cli(['login', 'sso']);
    expect(login.code).toBe(1);
    expect(login.stderr).toContain('it refused the user and password in HTTPS_PROXY');
    expect(login.stderr).not.toContain('wrong-pw-4e1');
  });

  it('a proxy that is down: says which one and where it was set', async () => {
    await withProxy({ https_proxy: 'http://127.0.0.1:9' });
    const login = await cli(['login', 'sso']);
    expect(login.code).toBe(1);
    expect(login.stderr).toContain('cannot reach the proxy http://127.0.0.1:9 (from https_proxy): ECONNREFUSED');
  });

  it('logs in and refreshes through the proxy; the password goes to the proxy only', async () => {
    await withProxy({ HTTPS_PROXY: proxied() });
    const signedIn = await loginAndRefreshThroughProxy({
      cli,
      profile: 'sso',
      issuer,
      browserStandIn,
      proxy: { server: proxy.url, username: USER, password: PASSWORD },
    });
    browser = signedIn.browser;

    // The proxy saw the broker's tunnels to the issuer: discovery, the code, the refresh.
    const log = await proxy.log();
    expect(log).toMatch(new RegExp(`CONNECT ${ISSUER_HOST.replace(/\./g, '\\.')}:\\d+`));
    expectNoSecretIn(
      [signedIn.login.stdout, signedIn.login.stderr, signedIn.refresh.stderr, await readDaemonLog(home.dir)],
      proxyPasswordForms(PASSWORD),
    );
  }, 120_000);
});
