import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { canRunCorporateProxy, type CorporateProxy } from '../support/corporateProxy.js';
import { proxyUrlWith, startIssuerBehindProxy } from '../support/issuerBehindProxy.js';
import type { TestIssuer } from '../support/oidcIssuer.js';
import { assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const ISSUER_HOST = 'issuer.kubecred.test';
// Named in NO_PROXY: it goes direct, and resolves nowhere outside the proxy, so it cannot be reached.
const DIRECT_HOST = 'direct.kubecred.test';
const USER = 'alice';
// The proxy's password (tinyproxy takes letters, digits and -._ only): it goes to the proxy, and nowhere else.
const PASSWORD = 'c0rp-doctor.pw_51e9';
const WRONG_PASSWORD = 'wr0ng-doctor.pw_0b77';

interface Finding {
  readonly check: string;
  readonly status: string;
  readonly title: string;
  readonly detail: string;
  readonly fix?: string;
}

/**
 * Issue 43: `kubecred doctor` and `kubecred status` say which proxy each profile's servers go
 * through, and doctor tries them through it. The issuer's name resolves for the proxy only
 * (tinyproxy with its own /etc/hosts), so doctor's handshake with it succeeds through the proxy
 * or not at all; the proxy's log shows the CONNECT. The proxy's password is in no output.
 */
describe.runIf(canRunCorporateProxy())('doctor and status behind a corporate proxy (tinyproxy, Basic auth)', () => {
  let home: TempHome;
  let issuer: TestIssuer;
  let proxy: CorporateProxy;
  let broker: TestBroker | undefined;
  let env: Record<string, string> = {};
  const { cli } = callersFor(
    () => home.dir,
    () => env,
  );
  const proxyWith = (password: string) => proxyUrlWith(proxy, USER, password);
  const issuerHost = () => new URL(issuer.issuer).host;
  const doctor = async () => {
    const { stdout, stderr } = await cli(['doctor', '-o', 'json']);
    expect(stdout, stderr).not.toBe('');
    const findings = (JSON.parse(stdout) as { findings: Finding[] }).findings;
    return { findings, network: findings.filter((f) => f.check === 'network'), output: stdout + stderr };
  };
  const expectNoPassword = (text: string) => {
    for (const secret of [PASSWORD, WRONG_PASSWORD]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(encodeURIComponent(secret));
    }
  };

  beforeAll(async () => {
    assertBuilt();
    home = await makeTempHome();
    ({ issuer, proxy } = await startIssuerBehindProxy(home.dir, ISSUER_HOST, { user: USER, password: PASSWORD }));
    await writeConfig(
      home.dir,
      [
        'profiles:',
        `  - {name: sso, provider: oidc, issuer: "${issuer.issuer}", clientId: ${issuer.clientId}, caFile: "${issuer.caFile}"}`,
        // The same issuer without its CA: through the proxy, an unknown root reads as a re-signing proxy would.
        `  - {name: bare, provider: oidc, issuer: "${issuer.issuer}", clientId: ${issuer.clientId}}`,
        `  - {name: near, provider: oidc, issuer: "https://${DIRECT_HOST}:8443", clientId: kubernetes}`,
        '  - {name: wrapped, provider: exec, command: /bin/true}',
        '',
      ].join('\n'),
    );
  }, 120_000);

  afterAll(async () => {
    await broker?.stop();
    await proxy?.stop();
    await issuer?.stop().catch(() => undefined);
    await home?.cleanup();
  });

  it('without a proxy set, doctor says it went direct, and the issuer is out of reach (no way around the proxy)', async () => {
    env = {};
    const { network, output } = await doctor();
    const sso = network.find((f) => f.title === `issuer ${issuerHost()} (sso)`);
    expect(sso?.status).toBe('warn');
    expect(sso?.detail).toContain('direct (no HTTPS_PROXY set): ENOTFOUND');
    expect(sso?.fix).toContain('set HTTPS_PROXY');
    expectNoPassword(output);
  }, 60_000);

  it('doctor names the proxy (never its password), reaches the issuer through it and verifies its TLS', async () => {
    env = { HTTPS_PROXY: proxyWith(PASSWORD), NO_PROXY: `localhost,${DIRECT_HOST}` };
    const before = (await proxy.log()).split('\n').length;
    const { findings, network, output } = await doctor();
    const sso = network.find((f) => f.title === `issuer ${issuerHost()} (sso)`);
    expect(sso?.status).toBe('ok');
    expect(sso?.detail).toBe(
      `through the proxy ${proxy.url} (from HTTPS_PROXY): TLS verified, its certificate signed by kubecred-test-ca`,
    );
    const bare = network.find((f) => f.title === `issuer ${issuerHost()} (bare)`);
    expect(bare?.status).toBe('fail');
    expect(bare?.detail).toBe(
      `through the proxy ${proxy.url} (from HTTPS_PROXY): its certificate (signed by kubecred-test-ca) chains to no root this machine trusts (UNABLE_TO_VERIFY_LEAF_SIGNATURE)`,
    );
    expect(bare?.fix).toContain('a TLS-inspecting proxy may be re-signing this connection: put its root CA in');
    // The NO_PROXY entry that sent it direct is named; the host resolves nowhere, so it is not reached.
    const near = network.find((f) => f.title === `issuer ${DIRECT_HOST}:8443 (near)`);
    expect(near?.status).toBe('warn');
    expect(near?.detail).toContain(`direct (NO_PROXY matches ${DIRECT_HOST}): ENOTFOUND`);
    const plugin = network.find((f) => f.title === 'plugin (wrapped)');
    expect(plugin?.detail).toContain(`HTTPS_PROXY=${proxy.url}, NO_PROXY=localhost,${DIRECT_HOST}`);
    // The clock check reads the issuer's Date header through the same proxy.
    const clock = findings.find((f) => f.check === 'clock' && f.title.includes('(sso)'));
    expect(clock?.detail).toMatch(/^reachable/);
    // The proxy saw doctor's tunnels to the issuer (the handshake and the clock's GET).
    const connects = (await proxy.log())
      .split('\n')
      .slice(before - 1)
      .filter((line) => line.includes(`CONNECT ${issuerHost()}`));
    expect(connects.length).toBeGreaterThanOrEqual(2);
    expectNoPassword(output);
  }, 60_000);

  it("with no password or a wrong one doctor quotes the proxy's answer and the setting to change", async () => {
    env = { HTTPS_PROXY: proxy.url, NO_PROXY: DIRECT_HOST };
    const none = (await doctor()).network.find((f) => f.title === `issuer ${issuerHost()} (sso)`);
    expect(none?.status).toBe('fail');
    expect(none?.detail).toBe(
      `the proxy ${proxy.url} (from HTTPS_PROXY) answered 407 Proxy Authentication Required to CONNECT ${issuerHost()}: it wants a user and password`,
    );
    expect(none?.fix).toBe('put them in HTTPS_PROXY as http://user:password@host:port (the password URL-encoded)');

    // tinyproxy answers a wrong password with 401 (squid with 407 again): either is told as the password refused.
    env = { https_proxy: proxyWith(WRONG_PASSWORD), NO_PROXY: DIRECT_HOST };
    const { network, output } = await doctor();
    const wrong = network.find((f) => f.title === `issuer ${issuerHost()} (sso)`);
    expect(wrong?.status).toBe('fail');
    expect(wrong?.detail).toBe(
      `the proxy ${proxy.url} (from https_proxy) answered 401 Unauthorized to CONNECT ${issuerHost()}: it refused the user and password in https_proxy`,
    );
    expect(wrong?.fix).toBe('check them there (http://user:password@host:port, the password URL-encoded)');
    const text = await cli(['doctor']);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('answered 401 Unauthorized');
    expectNoPassword(output + text.stdout + text.stderr);
  }, 60_000);

  it("status shows the broker's proxy for each profile, and says when this shell would go another way", async () => {
    // No broker yet: the routes are this shell's, and said to be.
    env = { HTTPS_PROXY: proxyWith(PASSWORD), NO_PROXY: DIRECT_HOST };
    const before = await cli(['status']);
    expect(before.stdout).toContain(
      `network (as a broker started from this shell would reach each server):\n  sso: issuer ${issuerHost()} through the proxy ${proxy.url} (from HTTPS_PROXY)\n`,
    );
    expectNoPassword(before.stdout + before.stderr);

    env = {};
    broker = await startTestBroker(home.dir, { HTTPS_PROXY: proxyWith(PASSWORD), NO_PROXY: DIRECT_HOST });
    const plain = await cli(['status']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toContain('network (as the broker reaches each server):\n');
    expect(plain.stdout).toContain(
      `  sso: issuer ${issuerHost()} through the proxy ${proxy.url} (from HTTPS_PROXY); from this shell it would go direct (no HTTPS_PROXY set): the broker keeps the environment it was started with (kubecred restart from this shell to change it, or name the proxy in config.yaml's network: so that no shell decides)\n`,
    );
    expect(plain.stdout).toContain(`  near: issuer ${DIRECT_HOST}:8443 direct (NO_PROXY matches ${DIRECT_HOST})\n`);
    expect(plain.stdout).toContain(
      `  wrapped: the plugin chooses its proxy itself, from the broker's proxy variables: HTTPS_PROXY=${proxy.url}, NO_PROXY=${DIRECT_HOST}\n`,
    );

    env = { HTTPS_PROXY: proxyWith(PASSWORD), NO_PROXY: DIRECT_HOST };
    const same = await cli(['status']);
    expect(same.stdout).toContain(`  sso: issuer ${issuerHost()} through the proxy ${proxy.url} (from HTTPS_PROXY)\n`);
    const json = await cli(['status', '-o', 'json']);
    const profiles = (JSON.parse(json.stdout) as { profiles: { name: string; network?: { route: string }[] }[] })
      .profiles;
    expect(profiles.find((p) => p.name === 'sso')?.network?.[0]?.route).toBe(
      `through the proxy ${proxy.url} (from HTTPS_PROXY)`,
    );
    expectNoPassword(plain.stdout + plain.stderr + same.stdout + same.stderr + json.stdout + broker.output());
  }, 60_000);
});
