import { describe, expect, it } from 'vitest';
import { firstUsableProxy } from '../../../src/main/platform/pacAnswer.js';
import { BrokerProxies } from '../../../src/main/platform/brokerProxies.js';
import { proxySettings } from '../../../src/main/platform/proxyEnvironment.js';
import { proxyRouteWords } from '../../../src/main/platform/proxyRouteWords.js';
import { SystemProxyRoutes } from '../../../src/main/platform/systemProxyRoutes.js';

const issuer = new URL('https://login.corp/realms/dev');

/** A resolver that answers from a table and counts what it was asked; a clock the test moves. */
function system(answers: Record<string, string | Error>) {
  const asked: string[] = [];
  let now = 0;
  const warnings: string[] = [];
  const routes = new SystemProxyRoutes(
    async (url) => {
      asked.push(url);
      const answer = answers[new URL(url).origin] ?? 'DIRECT';
      if (answer instanceof Error) throw answer;
      return answer;
    },
    { now: () => now },
    { info: () => undefined, warn: (message) => void warnings.push(message), error: () => undefined },
  );
  return { routes, asked, warnings, advance: (ms: number) => (now += ms) };
}

describe("Chromium's PAC-style answer", () => {
  it('takes the first HTTP(S) proxy, passes over SOCKS, and reads DIRECT as no proxy', () => {
    expect(firstUsableProxy('PROXY proxy.corp:3128; DIRECT').proxy?.href).toBe('http://proxy.corp:3128/');
    expect(firstUsableProxy('HTTPS secure.corp:443').proxy?.href).toBe('https://secure.corp/');
    expect(firstUsableProxy('SOCKS5 socks.corp:1080; PROXY b.corp:8080')).toMatchObject({ skipped: ['SOCKS5'] });
    expect(firstUsableProxy('SOCKS5 socks.corp:1080; PROXY b.corp:8080').proxy?.host).toBe('b.corp:8080');
    expect(firstUsableProxy('DIRECT').proxy).toBeUndefined();
    expect(firstUsableProxy('SOCKS socks.corp:1080')).toEqual({ proxy: undefined, skipped: ['SOCKS'] });
    expect(firstUsableProxy('').proxy).toBeUndefined();
    expect(firstUsableProxy('PROXY').proxy).toBeUndefined();
  });
});

describe("the system's proxy settings in the tray app", () => {
  it('asks once per origin for a minute, then again (a PAC file may move a host)', async () => {
    const { routes, asked, advance } = system({ 'https://login.corp': 'PROXY proxy.corp:3128' });
    expect((await routes.route(issuer))?.proxy.host).toBe('proxy.corp:3128');
    await routes.route(new URL('https://login.corp/other'));
    expect(asked).toHaveLength(1);
    advance(61_000);
    await routes.route(issuer);
    expect(asked).toHaveLength(2);
    expect(routes.known(issuer)?.source).toBe("the system's proxy settings");
  });

  it('goes direct when the resolver fails, and says so once in the log', async () => {
    const { routes, warnings } = system({ 'https://login.corp': new Error('no session') });
    expect(await routes.route(issuer)).toBeUndefined();
    expect(await routes.route(issuer)).toBeUndefined();
    expect(warnings).toEqual(['the system proxy settings could not be read; going direct']);
  });

  it('decides only where no proxy variable is set: the variables win, as kubectl reads them', async () => {
    const { routes, asked } = system({ 'https://login.corp': 'PROXY proxy.corp:3128' });
    const fromVariables = new BrokerProxies(proxySettings({ HTTPS_PROXY: 'http://env.corp:8080' }), routes);
    expect((await fromVariables.routeNow(issuer))?.proxy.host).toBe('env.corp:8080');
    expect(asked).toEqual([]);
    const fromSystem = new BrokerProxies(proxySettings({}), routes);
    expect(proxyRouteWords(fromSystem, issuer)).toMatch(/^direct \(the system's proxy settings named no proxy/);
    expect((await fromSystem.routeNow(issuer))?.proxy.host).toBe('proxy.corp:3128');
    expect(proxyRouteWords(fromSystem, issuer)).toBe(
      "through the proxy http://proxy.corp:3128 (from the system's proxy settings)",
    );
    fromSystem.adopt({ httpsProxy: 'http://pinned.corp:3128' });
    expect((await fromSystem.routeNow(issuer))?.proxy.host).toBe('pinned.corp:3128');
  });
});
