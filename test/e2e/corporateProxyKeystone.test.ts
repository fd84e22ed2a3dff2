import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfig } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { canRunCorporateProxy, startCorporateProxy, type CorporateProxy } from '../support/corporateProxy.js';
import type { KeystoneStandIn } from '../support/keystoneStandIn.js';
import { KEYSTONE_HOST, startKeystoneBehindProxy } from '../support/keystoneBehindProxy.js';
import { assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

// The password of the profile's own proxy: kept in the keychain, sent to that proxy only.
const PROXY_USER = 'dana';
const PROXY_PASSWORD = 'own-proxy.pw_c4d9';

/**
 * Issue 43: Keystone behind a company's proxy. Its name resolves for the proxy only, so the
 * broker reaches it through the proxy or not at all; the stand-in hands out the token kubectl
 * gets, and the proxy's log names the host it tunnelled to.
 */
describe.runIf(canRunCorporateProxy())('Keystone behind a corporate proxy (tinyproxy)', () => {
  let home: TempHome;
  let keystone: KeystoneStandIn;
  let proxy: CorporateProxy;
  let ownProxy: CorporateProxy;
  let env: Record<string, string> = {};
  const { cli, credential } = callersFor(
    () => home.dir,
    () => env,
  );

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    const world = await startKeystoneBehindProxy(home.dir);
    ({ keystone, proxy } = world);
    ownProxy = await startCorporateProxy({
      dir: path.join(home.dir, 'own-proxy'),
      hosts: { [KEYSTONE_HOST]: '127.0.0.1' },
      basicAuth: { user: PROXY_USER, password: PROXY_PASSWORD },
    });
    const { authUrl, caCertPath } = world;
    const ownProxyUrl = `http://${PROXY_USER}@${new URL(ownProxy.url).host}`;
    await writeConfig(
      home.dir,
      `profiles:\n  - { name: os, provider: keystone, authUrl: "${authUrl}", userId: u-alice, projectId: p-demo, caFile: ${caCertPath} }\n` +
        `  - { name: os-own, provider: keystone, authUrl: "${authUrl}", userId: u-alice, projectId: p-demo, caFile: ${caCertPath}, proxyUrl: "${ownProxyUrl}" }\n`,
    );
    for (const profile of ['os', 'os-own']) {
      const stored = await cli(['secret', 'set', profile, 'password'], 'correct horse battery');
      expect(stored.code, stored.stderr).toBe(0);
    }
  }, 120_000);

  afterAll(async () => {
    await cli(['stop']);
    await proxy?.stop();
    await ownProxy?.stop();
    await keystone?.close();
    await home?.cleanup();
  });

  it('without the proxy Keystone cannot be reached; through it kubectl gets its token', async () => {
    const direct = await credential('os');
    expect(direct.code).not.toBe(0);
    expect(direct.stderr).toContain('could not resolve the host of Keystone');
    expect(direct.stderr).toContain('direct (no HTTPS_PROXY set)');

    await cli(['stop']);
    env = { HTTPS_PROXY: proxy.url };
    const served = await credential('os');
    expect(served.code, served.stderr).toBe(0);
    expect(JSON.parse(served.stdout).status.token).toBe(keystone.tokens.at(-1));
    expect(await proxy.log()).toContain(`CONNECT ${KEYSTONE_HOST}:`);
  });

  it('a profile with its own proxyUrl goes through that proxy, its password from the keychain', async () => {
    await cli(['stop']);
    env = { HTTPS_PROXY: proxy.url };
    const personsProxyBefore = await proxy.log();
    const withoutPassword = await credential('os-own');
    expect(withoutPassword.code).not.toBe(0);
    // tinyproxy answers a user without a password with 401.
    expect(withoutPassword.stderr).toContain(
      `the proxy ${ownProxy.url} (from proxyUrl of profile "os-own") answered 40`,
    );
    expect(withoutPassword.stderr).toContain('it wants the password of the user in proxyUrl of profile "os-own"');
    expect(withoutPassword.stderr).toContain('kubecred secret set os-own proxy-password');

    const stored = await cli(['secret', 'set', 'os-own', 'proxy-password'], PROXY_PASSWORD);
    expect(stored.code, stored.stderr).toBe(0);
    const served = await credential('os-own');
    expect(served.code, served.stderr).toBe(0);
    expect(JSON.parse(served.stdout).status.token).toBe(keystone.tokens.at(-1));
    // Its own proxy tunnelled it; the person's proxy (HTTPS_PROXY) did not see this profile.
    expect(await ownProxy.log()).toContain(`CONNECT ${KEYSTONE_HOST}:`);
    expect(await proxy.log()).toBe(personsProxyBefore);
    const daemonLog = await readFile(path.join(home.dir, 'state', 'daemon.log'), 'utf8').catch(() => '');
    for (const text of [withoutPassword.stderr, stored.stdout, stored.stderr, served.stderr, daemonLog])
      expect(text).not.toContain(PROXY_PASSWORD);
    expect(await readFile(path.join(home.dir, 'config.yaml'), 'utf8')).not.toContain(PROXY_PASSWORD);
  });

  it('config.yaml refuses a password in a proxyUrl, and says where it goes instead', async () => {
    const config = await readFile(path.join(home.dir, 'config.yaml'), 'utf8');
    await writeConfig(home.dir, config.replace(`${PROXY_USER}@`, `${PROXY_USER}:in-the-file@`));
    const status = await cli(['profile', 'list']);
    await writeConfig(home.dir, config);
    expect(status.code).not.toBe(0);
    expect(status.stderr).toContain('no password in config.yaml');
    expect(status.stderr).toContain('kubecred secret set <profile> proxy-password');
    expect(status.stderr).not.toContain('in-the-file');
  });

  // Security review 4, D10: the broker took its proxy from whichever program started it, which a
  // project's .envrc may have pointed anywhere. config.yaml's network pins it.
  it("config.yaml's network decides, whatever proxy the program that started the broker had", async () => {
    const hostile = await connectionCounter();
    try {
      await cli(['stop']);
      const config = await readFile(path.join(home.dir, 'config.yaml'), 'utf8');
      const plugin = path.join(home.dir, 'print-proxy.sh');
      await writeFile(
        plugin,
        '#!/bin/sh\nprintf \'{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s|%s|%s"}}\' "$HTTPS_PROXY" "$https_proxy" "$NO_PROXY"\n',
        { mode: 0o755 },
      );
      await writeConfig(
        home.dir,
        `network:\n  httpsProxy: "${proxy.url}"\n${config}  - { name: plug, provider: exec, command: ${plugin} }\n`,
      );
      env = { HTTPS_PROXY: hostile.url, https_proxy: hostile.url, NO_PROXY: KEYSTONE_HOST };
      const tunnelledBefore = (await proxy.log()).split(`CONNECT ${KEYSTONE_HOST}:`).length;
      const served = await credential('os');
      expect(served.code, served.stderr).toBe(0);
      expect(JSON.parse(served.stdout).status.token).toBe(keystone.tokens.at(-1));
      expect((await proxy.log()).split(`CONNECT ${KEYSTONE_HOST}:`).length).toBe(tunnelledBefore + 1);
      expect(hostile.connections()).toBe(0);
      // A wrapped plugin gets config.yaml's choice, not the starting program's variables.
      const plugged = await credential('plug');
      expect(plugged.code, plugged.stderr).toBe(0);
      expect(JSON.parse(plugged.stdout).status.token).toBe(`${proxy.url}|${proxy.url}|`);
      const status = await cli(['status']);
      expect(status.stdout).toContain(
        `os: Keystone ${KEYSTONE_HOST}:${new URL(keystone.authUrl).port} through the proxy ${proxy.url} (from httpsProxy in config.yaml's network)`,
      );
      expect(status.stdout).not.toContain('from this shell it would go');
      expect(status.stdout).toContain(
        `plug: the plugin chooses its proxy itself, from the broker's proxy variables: config.yaml's network (HTTPS_PROXY=${proxy.url})`,
      );
      await writeConfig(home.dir, config);
    } finally {
      await hostile.close();
    }
  });
});

/** A listener that only counts who connects (and hangs up on them): the proxy a hostile .envrc would name. */
async function connectionCounter(): Promise<{ url: string; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
