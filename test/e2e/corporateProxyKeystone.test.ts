import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfig } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { canRunCorporateProxy, startCorporateProxy, type CorporateProxy } from '../support/corporateProxy.js';
import { startKeystoneStandIn, type KeystoneStandIn } from '../support/keystoneStandIn.js';
import { createTestPki } from '../support/pki.js';
import { assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const KEYSTONE_HOST = 'keystone.kubecred.test';

/**
 * Issue 43: Keystone behind a company's proxy. Its name resolves for the proxy only, so the
 * broker reaches it through the proxy or not at all; the stand-in hands out the token kubectl
 * gets, and the proxy's log names the host it tunnelled to.
 */
describe.runIf(canRunCorporateProxy())('Keystone behind a corporate proxy (tinyproxy)', () => {
  let home: TempHome;
  let keystone: KeystoneStandIn;
  let proxy: CorporateProxy;
  let env: Record<string, string> = {};
  const { cli, credential } = callersFor(
    () => home.dir,
    () => env,
  );

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    const pki = await createTestPki(path.join(home.dir, 'pki'), [KEYSTONE_HOST]);
    keystone = await startKeystoneStandIn({ tls: { certPem: pki.serverCertPem, keyPem: pki.serverKeyPem } });
    proxy = await startCorporateProxy({ dir: path.join(home.dir, 'proxy'), hosts: { [KEYSTONE_HOST]: '127.0.0.1' } });
    const authUrl = keystone.authUrl.replace('127.0.0.1', KEYSTONE_HOST);
    await writeConfig(
      home.dir,
      `profiles:\n  - { name: os, provider: keystone, authUrl: "${authUrl}", userId: u-alice, projectId: p-demo, caFile: ${pki.caCertPath} }\n`,
    );
    const stored = await cli(['secret', 'set', 'os', 'password'], 'correct horse battery');
    expect(stored.code, stored.stderr).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await cli(['stop']);
    await proxy?.stop();
    await keystone?.close();
    await home?.cleanup();
  });

  it('without the proxy Keystone cannot be reached; through it kubectl gets its token', async () => {
    const direct = await credential('os');
    expect(direct.code).not.toBe(0);
    expect(direct.stderr).toContain('could not resolve the host of Keystone');
    expect(direct.stderr).toContain('directly (no HTTPS_PROXY is set)');

    await cli(['stop']);
    env = { HTTPS_PROXY: proxy.url };
    const served = await credential('os');
    expect(served.code, served.stderr).toBe(0);
    expect(JSON.parse(served.stdout).status.token).toBe(keystone.tokens.at(-1));
    expect(await proxy.log()).toContain(`CONNECT ${KEYSTONE_HOST}:`);
  });
});
