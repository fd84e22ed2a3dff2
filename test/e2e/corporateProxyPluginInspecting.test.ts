import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfig } from '../support/broker.js';
import { brokerSuccession } from '../support/brokerSuccession.js';
import { callersFor } from '../support/callers.js';
import { startInspectedMachine, type InspectedMachine } from '../support/inspectedMachine.js';
import { decryptedFlow, expectRootRefused, inspectingProxyCasesRun } from '../support/inspectingProxy.js';
import { startKubeApiServer, type KubeApiServer } from '../support/kubeApiServer.js';
import { createTestPki } from '../support/pki.js';
import { recordedWhoami } from '../support/recordedWhoami.js';
import { assertBuilt } from '../support/repo.js';
import { expectNoSecretIn, PrintedTexts } from '../support/secretAbsence.js';
import { writeShimKubeconfig } from '../support/shimKubeconfig.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const TOKENS_HOST = 'tokens.kubecred.test';
// What the token service hands the plugin, and the API server knows as plugin-user: made for this run.
const PLUGIN_TOKEN = `wrapped-plugin-token-${randomBytes(8).toString('hex')}`;
// The plugin's own credential with its token service (a refresh token, say): kept by the plugin, not by Kubecred.
const PLUGIN_REFRESH = `plugin-refresh-${randomBytes(8).toString('hex')}`;

/**
 * Issue 43: a wrapped exec plugin that makes its own calls (as cloud plugins reach their token
 * services) behind a proxy that inspects TLS (mitmproxy), whose root the company installed in
 * the OS trust store only. The plugin is curl: it gets the broker's proxy settings, and trusts
 * the certificate the proxy makes from the OS bundle it finds in the broker's mount namespace
 * (no --cacert, no CURL_CA_BUNDLE, no SSL_CERT_FILE). The token service's name resolves for
 * the proxy only, and the token it hands out is the one the API server knows: judged by
 * `kubectl auth whoami` against a real kube-apiserver, by the service's count, and by
 * mitmproxy's log of the request it decrypted. kubectl runs with no proxy at all.
 */
describe.runIf(inspectingProxyCasesRun())(
  'a wrapped exec plugin behind a TLS-inspecting proxy (mitmproxy), its root in the OS store only',
  () => {
    let home: TempHome;
    let tokens: Server;
    let tokensPort: number;
    /** Requests the token service answered with the token (the right refresh token shown). */
    let served = 0;
    let inspected: InspectedMachine;
    let api: KubeApiServer;
    let kubeconfig: string;
    const brokers = brokerSuccession(() => home.dir);
    /** Everything kubectl printed, to look for secrets in. */
    const printed = new PrintedTexts();
    const { cli } = callersFor(() => home.dir);

    /** The broker as the person's session starts it: `proxy`, the OS store with the proxy's root or not. */
    const nextBroker = (options: { proxy: string | undefined; rootInOsStore: boolean }) =>
      brokers.next(() => inspected.startBroker(home.dir, options));
    const whoami = recordedWhoami(printed, () => ({ home: home.dir, kubeconfig }));

    beforeAll(async () => {
      assertBuilt({ shim: true });
      home = await makeTempHome();
      const pki = await createTestPki(path.join(home.dir, 'pki'), [TOKENS_HOST]);
      tokens = createServer({ cert: pki.serverCertPem, key: pki.serverKeyPem }, (request, response) => {
        if (request.method === 'GET' && request.url === '/token') {
          if (request.headers.authorization !== `Bearer ${PLUGIN_REFRESH}`) return response.writeHead(401).end();
          served += 1;
          return response.writeHead(200, { 'content-type': 'text/plain' }).end(PLUGIN_TOKEN);
        }
        response.writeHead(404).end();
      });
      await new Promise<void>((resolve) => tokens.listen(0, '127.0.0.1', resolve));
      tokensPort = (tokens.address() as AddressInfo).port;
      inspected = await startInspectedMachine(home.dir, {
        hosts: [TOKENS_HOST],
        // The proxy trusts the token service's CA; neither the broker nor the plugin ever sees it.
        upstreamCaFiles: [pki.caCertPath],
      });
      api = await startKubeApiServer({
        dir: path.join(home.dir, 'apiserver'),
        pki,
        tokens: [{ token: PLUGIN_TOKEN, user: 'plugin-user' }],
      });

      // The plugin: asks its token service for a token (with the refresh token it keeps in a file
      // of its own), then prints the ExecCredential. curl reads HTTPS_PROXY and the OS bundle as
      // its environment and mounts have them.
      const refreshFile = path.join(home.dir, 'plugin-refresh-token');
      await writeFile(refreshFile, PLUGIN_REFRESH, { mode: 0o600 });
      const plugin = path.join(home.dir, 'token-service-plugin.sh');
      await writeFile(
        plugin,
        [
          '#!/bin/sh',
          `token=$(curl -sS --fail --max-time 20 -H "authorization: Bearer $(cat '${refreshFile}')" "https://${TOKENS_HOST}:${tokensPort}/token") || exit 1`,
          `printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}\\n' "$token"`,
          '',
        ].join('\n'),
        { mode: 0o755 },
      );
      await writeConfig(home.dir, `profiles:\n  - name: wrapped\n    provider: exec\n    command: ${plugin}\n`);
      kubeconfig = await writeShimKubeconfig(
        path.join(home.dir, 'wrapped.kubeconfig'),
        api,
        'wrapped',
        'client.authentication.k8s.io/v1',
      );
    }, 300_000);

    afterAll(async () => {
      await brokers.stop();
      await cli(['stop']);
      await api?.stop();
      await inspected?.stop();
      await new Promise<void>((resolve) => (tokens ? tokens.close(() => resolve()) : resolve()));
      await home?.cleanup();
    });

    it('without the proxy the token service cannot be reached: nothing passes by going around it', async () => {
      await nextBroker({ proxy: undefined, rootInOsStore: true });
      const direct = await whoami();
      expect(direct.code).not.toBe(0);
      expect(direct.stderr).toContain(`Could not resolve host: ${TOKENS_HOST}`);
      expect(served).toBe(0);
    }, 120_000);

    it("a broker whose OS store lacks the proxy's root: the plugin's curl refuses the proxy's certificate; nothing decrypted", async () => {
      await nextBroker({ proxy: inspected.proxy.url, rootInOsStore: false });
      const refused = await whoami();
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('SSL certificate problem');
      expect(served).toBe(0);
      // The proxy's side: the plugin turned its certificate down, and nothing was decrypted.
      await expectRootRefused(inspected.proxy, TOKENS_HOST);
    }, 120_000);

    it("with the root in the OS store: the plugin's request goes through the proxy, read by it, and kubectl is the plugin's user", async () => {
      await nextBroker({ proxy: inspected.proxy.url, rootInOsStore: true });
      const answer = await whoami();
      expect(answer.code, answer.stderr).toBe(0);
      expect(answer.stdout).toBe('plugin-user');
      expect(served).toBe(1);
      // mitmproxy decrypted the plugin's request (kubectl had no proxy: the plugin's HTTPS_PROXY was the broker's).
      const log = await inspected.proxy.log();
      expect(log).toMatch(decryptedFlow('GET', `https://${TOKENS_HOST}:${tokensPort}/token`));
    }, 120_000);

    it("no secret in any output or log of the broker: the plugin's token and its refresh token", async () => {
      const logs = await brokers.logs();
      expect(logs).toContain('broker listening');
      expectNoSecretIn([...printed.all, logs], [PLUGIN_TOKEN, PLUGIN_REFRESH]);
    });
  },
);
