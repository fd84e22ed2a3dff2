import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfig } from '../support/broker.js';
import type { BrowserDriver } from '../support/browserDriver.js';
import { callersFor, type Launch } from '../support/callers.js';
import { escapedRegex } from '../support/escapedRegex.js';
import { NOTHING_INHERITED, startInspectedMachine, type InspectedMachine } from '../support/inspectedMachine.js';
import { decryptedFlow, expectRootRefused, inspectingProxyCasesRun } from '../support/inspectingProxy.js';
import { startKeystoneStandIn, STAND_IN_DATA, type KeystoneStandIn } from '../support/keystoneStandIn.js';
import { startTestIssuer, type TestIssuer } from '../support/oidcIssuer.js';
import { createTestPki } from '../support/pki.js';
import { inPrivateMounts } from '../support/privateMounts.js';
import { loginAndRefreshThroughProxy } from '../support/proxiedOidcLogin.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const ISSUER_HOST = 'issuer.kubecred.test';
const KEYSTONE_HOST = 'keystone.kubecred.test';
// Planted: it goes to Keystone (through the proxy, which reads it: that is what inspecting is)
// and into no output of Kubecred's and no log of the broker's.
const KEYSTONE_PASSWORD = `planted-${randomBytes(9).toString('hex')}`;

const available = inspectingProxyCasesRun();

/**
 * Issue 43: a proxy that inspects TLS (mitmproxy), whose root the company installed in the OS
 * trust store only. The servers' names resolve for the proxy alone, so the broker reaches them
 * through it or not at all, and must then trust the certificate the proxy makes for them: from
 * the OS bundle (in a mount namespace of the broker's own; no caFile, no SSL_CERT_FILE, no
 * NODE_EXTRA_CA_CERTS). Judged from the far side: mitmproxy's log of the flows it decrypted,
 * the issuer's grants, the Keystone stand-in's tokens.
 */
describe.runIf(available)('behind a TLS-inspecting proxy (mitmproxy), its root in the OS store only', () => {
  let home: TempHome;
  let issuer: TestIssuer;
  let keystone: KeystoneStandIn;
  let inspected: InspectedMachine;
  let browserStandIn: RecordingBrowser;
  let browser: BrowserDriver | undefined;
  let env: Record<string, string | undefined> = {};
  let launch: Launch = (command, args) => ({ command, args: [...args] });
  const { cli, credential } = callersFor(
    () => home.dir,
    () => ({ KUBECRED_BROWSER: browserStandIn.command, ...NOTHING_INHERITED, ...env }),
    () => launch,
  );
  /** The next broker starts with `proxy` set, and the proxy's root in its OS store or not. */
  const nextBroker = async (options: { proxy: string | undefined; rootInOsStore: boolean }) => {
    await cli(['stop']);
    env = options.proxy ? { HTTPS_PROXY: options.proxy } : {};
    launch = options.rootInOsStore
      ? (command, args) => inPrivateMounts([inspected.osBundle], command, args)
      : (command, args) => ({ command, args: [...args] });
  };

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    issuer = await startTestIssuer({ dir: path.join(home.dir, 'issuer'), hostname: ISSUER_HOST });
    const pki = await createTestPki(path.join(home.dir, 'pki'), [KEYSTONE_HOST]);
    keystone = await startKeystoneStandIn({
      tls: { certPem: pki.serverCertPem, keyPem: pki.serverKeyPem },
      data: {
        ...STAND_IN_DATA,
        users: STAND_IN_DATA.users.map((user) =>
          user.id === 'u-alice' ? { ...user, password: KEYSTONE_PASSWORD } : user,
        ),
      },
    });
    inspected = await startInspectedMachine(home.dir, {
      hosts: [ISSUER_HOST, KEYSTONE_HOST],
      // The proxy trusts the servers' CAs, as a company's proxy trusts its internal CA; the broker never sees them.
      upstreamCaFiles: [issuer.caFile, pki.caCertPath],
    });
    browserStandIn = await recordingBrowser(home.dir);
    const authUrl = keystone.authUrl.replace('127.0.0.1', KEYSTONE_HOST);
    // No caFile anywhere: the proxy's root must come from the OS store.
    await writeConfig(
      home.dir,
      [
        'profiles:',
        `  - { name: sso, provider: oidc, issuer: "${issuer.issuer}", clientId: ${issuer.clientId}, scopes: [openid, offline_access] }`,
        `  - { name: os, provider: keystone, authUrl: "${authUrl}", userId: u-alice, projectId: p-demo }`,
        '',
      ].join('\n'),
    );
    const stored = await cli(['secret', 'set', 'os', 'password'], KEYSTONE_PASSWORD);
    expect(stored.code, stored.stderr).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await cli(['stop']);
    await browser?.close();
    await inspected?.stop();
    await keystone?.close();
    await issuer?.stop().catch(() => undefined);
    await home?.cleanup();
  });

  it('without the proxy neither server can be reached at all (no way around it)', async () => {
    await nextBroker({ proxy: undefined, rootInOsStore: true });
    const login = await cli(['login', 'sso']);
    expect(login.code).toBe(1);
    expect(login.stderr).toContain('ENOTFOUND');
    const direct = await credential('os');
    expect(direct.code).not.toBe(0);
    expect(direct.stderr).toMatch(/could not resolve the host|ENOTFOUND/);
  });

  it("a broker whose OS store lacks the proxy's root: names the unknown root, the proxy, and where the root belongs", async () => {
    await nextBroker({ proxy: inspected.proxy.url, rootInOsStore: false });
    const login = await cli(['login', 'sso']);
    expect(login.code).toBe(1);
    const untrusted = `through the proxy ${inspected.proxy.url} (from HTTPS_PROXY), ${new URL(issuer.issuer).host} showed a certificate signed by a root this machine does not trust`;
    expect(login.stderr).toContain(untrusted);
    expect(login.stderr).toContain('TLS-inspecting proxy re-signs the sites it passes with its own root');
    expect(login.stderr).toMatch(/add that root to the OS trust store .* or put it in the profile's caFile/);

    const token = await credential('os');
    expect(token.code).not.toBe(0);
    expect(token.stderr).toContain(`through the proxy ${inspected.proxy.url} (from HTTPS_PROXY), ${KEYSTONE_HOST}:`);
    expect(token.stderr).toContain('TLS-inspecting proxy re-signs the sites it passes with its own root');

    // The proxy's side: the broker turned its certificate down, and nothing was decrypted.
    for (const host of [ISSUER_HOST, KEYSTONE_HOST]) {
      const { refused } = await expectRootRefused(inspected.proxy, host);
      expect(refused.join('\n')).toContain("does not trust the proxy's certificate");
    }
  });

  it('logs in and refreshes through the proxy, trusting its root from the OS store', async () => {
    await nextBroker({ proxy: inspected.proxy.url, rootInOsStore: true });
    ({ browser } = await loginAndRefreshThroughProxy({
      cli,
      profile: 'sso',
      issuer,
      browserStandIn,
      proxy: { server: inspected.proxy.url },
    }));

    // mitmproxy read inside the broker's TLS, by path: the discovery document and the token
    // endpoint (the code, then the refresh), which only the broker asks for, never the browser.
    const log = await inspected.proxy.log();
    expect(log).toMatch(decryptedFlow('GET', `${issuer.issuer}/.well-known/openid-configuration`));
    expect(log.match(decryptedFlow('POST', `${issuer.issuer}/token`, 'g'))).toHaveLength(2);
  }, 120_000);

  it('Keystone through the proxy: kubectl gets the token, the password goes to Keystone only', async () => {
    await nextBroker({ proxy: inspected.proxy.url, rootInOsStore: true });
    const issuedBefore = keystone.tokens.length;
    const served = await credential('os');
    expect(served.code, served.stderr).toBe(0);
    expect(keystone.tokens.length).toBe(issuedBefore + 1);
    expect(JSON.parse(served.stdout).status.token).toBe(keystone.tokens.at(-1));
    expect(JSON.stringify(keystone.received.at(-1)?.body)).toContain(KEYSTONE_PASSWORD);
    expect(await inspected.proxy.log()).toMatch(
      new RegExp(`POST https://${escapedRegex(KEYSTONE_HOST)}:\\d+/v3/auth/tokens\\b`),
    );

    const daemonLog = await readFile(path.join(home.dir, 'state', 'daemon.log'), 'utf8');
    for (const text of [served.stdout, served.stderr, daemonLog]) expect(text).not.toContain(KEYSTONE_PASSWORD);
  });
});
