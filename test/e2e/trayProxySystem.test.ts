import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, writeConfig } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { canRunCorporateProxy, type CorporateProxy } from '../support/corporateProxy.js';
import type { KeystoneStandIn } from '../support/keystoneStandIn.js';
import { KEYSTONE_HOST, startKeystoneBehindProxy } from '../support/keystoneBehindProxy.js';
import { REPO_ROOT, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const MAIN = path.join(REPO_ROOT, 'dist', 'main', 'electron', 'main.js');
const FAKE_ELECTRON = path.join(REPO_ROOT, 'test', 'support', 'fakeElectron', 'register.mjs');
const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'];

/**
 * Issue 43: the tray app, started by the desktop with no proxy variable, takes the OS's proxy
 * settings (PAC included) from Electron's resolver. The tray's real main process runs under
 * plain Node with a stand-in `electron` whose resolver answers as Chromium would for a PAC file
 * naming the company's proxy; the proxy is a real tinyproxy, the only way to Keystone's name.
 * Judged by the token Keystone issued and the proxy's log.
 */
describe.runIf(canRunCorporateProxy())("the tray app behind the system's proxy settings", () => {
  let home: TempHome;
  let keystone: KeystoneStandIn;
  let proxy: CorporateProxy;
  let app: ChildProcess | undefined;
  let output = '';
  const noProxyVariables = () => Object.fromEntries(PROXY_VARIABLES.map((name) => [name, undefined]));
  const { cli, credential } = callersFor(() => home.dir, noProxyVariables);
  const log = () => path.join(home.dir, 'electron-calls.jsonl');
  const resolved = async (): Promise<string[]> =>
    (await readFile(log(), 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { event: string; url?: string })
      .filter((call) => call.event === 'session.resolveProxy')
      .map((call) => call.url ?? '');

  async function startApp(env: Record<string, string | undefined>): Promise<void> {
    output = '';
    const started = spawn(process.execPath, ['--import', FAKE_ELECTRON, MAIN], {
      env: Object.fromEntries(
        Object.entries({ ...brokerEnv(home.dir), ...noProxyVariables(), FAKE_ELECTRON_LOG: log(), ...env }).filter(
          (entry): entry is [string, string] => entry[1] !== undefined,
        ),
      ),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    app = started;
    await expect
      .poll(async () => (await cli(['status', '-o', 'json'])).stdout, {
        timeout: 20_000,
        message: `the tray app's broker never answered:\n${output}`,
      })
      .toContain(`"pid": ${started.pid}`);
  }

  async function quitApp(): Promise<void> {
    if (!app || app.exitCode !== null) return;
    const exited = new Promise((resolve) => app!.once('exit', resolve));
    app.kill('SIGTERM');
    await exited;
  }

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    const world = await startKeystoneBehindProxy(home.dir);
    ({ keystone, proxy } = world);
    const { authUrl, caCertPath } = world;
    await writeConfig(
      home.dir,
      `profiles:\n  - { name: os, provider: keystone, authUrl: "${authUrl}", userId: u-alice, projectId: p-demo, caFile: ${caCertPath} }\n`,
    );
  }, 120_000);

  afterAll(async () => {
    await quitApp();
    await proxy?.stop();
    await keystone?.close();
    await home?.cleanup();
  });

  it("with the system's settings saying DIRECT, Keystone's name cannot be reached, and the error says why", async () => {
    await startApp({ FAKE_ELECTRON_SYSTEM_PROXY: 'DIRECT' });
    expect((await cli(['secret', 'set', 'os', 'password'], 'correct horse battery')).code).toBe(0);
    const direct = await credential('os');
    expect(direct.code).not.toBe(0);
    expect(direct.stderr).toContain('could not resolve the host of Keystone');
    expect(direct.stderr).toContain("direct (the system's proxy settings named no proxy for it when last asked)");
    expect((await resolved()).some((url) => url.startsWith(`https://${KEYSTONE_HOST}:`))).toBe(true);
    expect(await proxy.log()).not.toContain(KEYSTONE_HOST);
    await quitApp();
  });

  it('with a PAC answer naming the proxy, the token comes through it, and status names the system settings', async () => {
    await startApp({ FAKE_ELECTRON_SYSTEM_PROXY: `SOCKS5 127.0.0.1:1; PROXY ${new URL(proxy.url).host}; DIRECT` });
    const served = await credential('os');
    expect(served.code, served.stderr).toBe(0);
    expect(JSON.parse(served.stdout).status.token).toBe(keystone.tokens.at(-1));
    expect(await proxy.log()).toContain(`CONNECT ${KEYSTONE_HOST}:`);
    const status = await cli(['status']);
    expect(status.stdout).toContain(
      `os: Keystone ${KEYSTONE_HOST}:${new URL(keystone.authUrl).port} through the proxy ${proxy.url} (from the system's proxy settings)`,
    );
    expect(output).toContain('the system proxy settings name proxies Kubecred cannot use');
    await quitApp();
  });

  it('a proxy variable in its environment wins over the system settings, as kubectl reads it', async () => {
    const before = (await resolved()).length;
    await startApp({ FAKE_ELECTRON_SYSTEM_PROXY: 'PROXY 127.0.0.1:1', HTTPS_PROXY: proxy.url });
    const served = await credential('os');
    expect(served.code, served.stderr).toBe(0);
    expect((await resolved()).length).toBe(before);
    await quitApp();
  });
});
