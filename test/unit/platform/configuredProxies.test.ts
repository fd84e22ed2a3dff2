import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/main/config/configLoader.js';
import { BrokerProxies } from '../../../src/main/platform/brokerProxies.js';
import { chosenProxies, configuredProxies } from '../../../src/main/platform/configuredProxies.js';
import { proxySettings } from '../../../src/main/platform/proxyEnvironment.js';
import { proxyRouteWords, proxyVariablesWords } from '../../../src/main/platform/proxyRouteWords.js';
import { withStoredProxyPassword } from '../../../src/main/platform/proxyOverrides.js';

const CORP = 'http://proxy.corp:3128';
const STARTER = { HTTPS_PROXY: 'http://127.0.0.1:9', NO_PROXY: '.corp' };
const api = new URL('https://api.corp:6443');
const issuer = new URL('https://login.example.com');

// Security review 4, D10: config.yaml's network, not the program that started the broker, decides.
describe("config.yaml's network as the broker's proxy choice", () => {
  it('routes by its own settings and names them, never the environment the broker started in', () => {
    const proxies = configuredProxies({ httpsProxy: CORP, noProxy: 'internal.corp' });
    expect(proxies.routeFor(api)).toMatchObject({ source: "httpsProxy in config.yaml's network" });
    expect(proxies.proxyFor(api)?.href).toBe(`${CORP}/`);
    expect(proxyRouteWords(proxies, new URL('https://internal.corp'))).toBe(
      "direct (noProxy in config.yaml's network matches internal.corp)",
    );
    expect(proxyRouteWords(proxies, new URL('http://plain.example.com'))).toBe(
      "direct (no httpProxy in config.yaml's network)",
    );
  });

  it('hands a wrapped plugin all six variables, emptied where it names nothing', () => {
    expect(configuredProxies({ httpsProxy: CORP }).variables).toEqual({
      HTTPS_PROXY: CORP,
      https_proxy: CORP,
      HTTP_PROXY: '',
      http_proxy: '',
      NO_PROXY: '',
      no_proxy: '',
    });
    expect(proxyVariablesWords(configuredProxies({}))).toBe("config.yaml's network (no proxy)");
    expect(proxyVariablesWords(proxySettings({}))).toBe('none');
  });

  it('an empty network means no proxy at all, whatever the environment says', () => {
    const proxies = chosenProxies({}, STARTER);
    expect(proxies.routeFor(issuer)).toBeUndefined();
    expect(chosenProxies(undefined, STARTER).routeFor(issuer)?.source).toBe('HTTPS_PROXY');
  });

  it('is followed live by the broker, through the keychain-password wrapper too', () => {
    const live = new BrokerProxies(proxySettings(STARTER));
    const wrapped = withStoredProxyPassword(live, {
      read: async () => undefined,
      setting: 'kubecred secret set p proxy-password',
    });
    expect(wrapped.routeFor(issuer)?.proxy.href).toBe('http://127.0.0.1:9/');
    live.adopt({ httpsProxy: CORP });
    expect(wrapped.routeFor(issuer)).toMatchObject({ source: "httpsProxy in config.yaml's network" });
    expect(wrapped.routeFor(issuer)?.storedPassword?.setting).toBe('kubecred secret set p proxy-password');
    expect(wrapped.variables?.HTTPS_PROXY).toBe(CORP);
    live.adopt(undefined);
    expect(wrapped.httpsProxy?.href).toBe('http://127.0.0.1:9/');
    expect(wrapped.variables).toBeUndefined();
  });

  it('config.yaml refuses a password in it, and anything but http(s) proxies', () => {
    const withPassword = parseConfig('network:\n  httpsProxy: "http://u:secret-pw@proxy.corp:3128"\n', 'config.yaml');
    expect(withPassword.ok).toBe(false);
    if (!withPassword.ok) {
      expect(withPassword.error).toContain('no password in config.yaml');
      expect(withPassword.error).not.toContain('secret-pw');
    }
    expect(parseConfig('network:\n  httpsProxy: "socks5://proxy.corp:1080"\n', 'config.yaml').ok).toBe(false);
    expect(parseConfig('network:\n  proxy: "http://proxy.corp:3128"\n', 'config.yaml').ok).toBe(false);
    const good = parseConfig(`network:\n  httpsProxy: "${CORP}"\n  noProxy: ".corp,10.0.0.0/8"\n`, 'config.yaml');
    expect(good.ok && good.config.network).toEqual({ httpsProxy: CORP, noProxy: '.corp,10.0.0.0/8' });
  });
});
