import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpsClusterProbe } from '../../src/main/platform/httpsClusterProbe.js';
import { proxySettings } from '../../src/main/platform/proxyEnvironment.js';
import { canRunCorporateProxy, startCorporateProxy, type CorporateProxy } from '../support/corporateProxy.js';
import { proxyUrlWith } from '../support/issuerBehindProxy.js';
import { createTestPki, type TestPki } from '../support/pki.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const API_HOST = 'api.kubecred.test';
const USER = 'alice';
const PASSWORD = 'c0rp-revoke.pw_2c4d';
const TOKEN = 'kc-revocation-token-planted-71f0';

/**
 * Issue 43: the broker's revocation probe (is this cached token still accepted?) reaches the API
 * server as kubectl would: through the person's proxy, or the cluster's own proxy-url. The API
 * server's name resolves for the proxy only, so the probe gets its 401 through the proxy or not at all.
 */
describe.runIf(canRunCorporateProxy())('the revocation probe behind a corporate proxy (tinyproxy)', () => {
  let home: TempHome;
  let pki: TestPki;
  let proxy: CorporateProxy;
  let apiServer: Server;
  let server: string;
  const tokensSeen: string[] = [];
  const cluster = () => ({ server, 'certificate-authority-data': Buffer.from(pki.caPem).toString('base64') });

  beforeAll(async () => {
    home = await makeTempHome();
    pki = await createTestPki(path.join(home.dir, 'pki'), [API_HOST]);
    // A stand-in that rejects every token, as an API server does a revoked one.
    apiServer = createServer({ cert: pki.serverCertPem, key: pki.serverKeyPem }, (request, response) => {
      tokensSeen.push(request.headers.authorization ?? '');
      response.writeHead(401, { 'content-type': 'application/json' }).end('{"kind":"Status","code":401}');
    });
    await new Promise<void>((resolve) => apiServer.listen(0, '127.0.0.1', resolve));
    server = `https://${API_HOST}:${(apiServer.address() as AddressInfo).port}`;
    proxy = await startCorporateProxy({
      dir: path.join(home.dir, 'proxy'),
      hosts: { [API_HOST]: '127.0.0.1' },
      basicAuth: { user: USER, password: PASSWORD },
    });
  }, 60_000);

  afterAll(async () => {
    await proxy?.stop();
    apiServer?.close();
    await home?.cleanup();
  });

  it('without a proxy the API server cannot be reached, and nothing is concluded', async () => {
    const probe = new HttpsClusterProbe({ proxies: proxySettings({}), roots: [] });
    expect(await probe.rejects(cluster(), TOKEN)).toBe(false);
    expect(tokensSeen).toEqual([]);
  });

  it("through HTTPS_PROXY, or the cluster's proxy-url, it hears the 401; the token stays inside TLS", async () => {
    const viaEnvironment = new HttpsClusterProbe({
      proxies: proxySettings({ HTTPS_PROXY: proxyUrlWith(proxy, USER, PASSWORD) }),
      roots: [],
    });
    expect(await viaEnvironment.rejects(cluster(), TOKEN)).toBe(true);
    const viaKubeconfig = new HttpsClusterProbe({ proxies: proxySettings({}), roots: [] });
    expect(await viaKubeconfig.rejects({ ...cluster(), 'proxy-url': proxyUrlWith(proxy, USER, PASSWORD) }, TOKEN)).toBe(
      true,
    );
    expect(tokensSeen).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
    const log = await proxy.log();
    expect(log.match(new RegExp(`CONNECT ${API_HOST.replace(/\./g, '\\.')}:\\d+`, 'g'))?.length).toBe(2);
    expect(log).not.toContain(TOKEN);
  });
});
