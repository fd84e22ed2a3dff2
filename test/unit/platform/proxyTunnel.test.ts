import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { fixedProxy, withStoredProxyPassword } from '../../../src/main/platform/proxyOverrides.js';
import { openTunnel, ProxyRouteError, tunnelTrustError } from '../../../src/main/platform/proxyTunnel.js';

const route = { proxy: new URL('http://alice:s3cret-pw@proxy.corp:3128'), source: 'HTTPS_PROXY' };
const target = new URL('https://issuer.corp:8443/token');
const tlsError = (code: string) => Object.assign(new Error(`tls: ${code}`), { code });

describe('tunnelTrustError', () => {
  it('an unknown root through a proxy: names the proxy (never its password), the host, the code and where the root belongs', () => {
    const original = tlsError('SELF_SIGNED_CERT_IN_CHAIN');
    const said = tunnelTrustError(original, route, target);
    expect(said).toBeInstanceOf(ProxyRouteError);
    const { message, hint, cause } = said as ProxyRouteError;
    expect(message).toBe(
      'through the proxy http://proxy.corp:3128 (from HTTPS_PROXY), issuer.corp:8443 showed a certificate signed by a root this machine does not trust (SELF_SIGNED_CERT_IN_CHAIN)',
    );
    expect(hint).toContain('TLS-inspecting proxy');
    expect(hint).toContain('OS trust store');
    expect(hint).toContain("profile's caFile");
    expect(hint).toContain('pass issuer.corp uninspected');
    expect(`${message} ${hint}`).not.toContain('s3cret-pw');
    expect(cause).toBe(original);
  });

  it('other failures (an expired certificate, a wrong name, a reset) come back as they were', () => {
    for (const code of ['CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID', 'ECONNRESET']) {
      const original = tlsError(code);
      expect(tunnelTrustError(original, route, target)).toBe(original);
    }
    expect(tunnelTrustError('not an error', route, target)).toBe('not an error');
  });
});

/** A proxy that answers every CONNECT with `status`, as one that wants credentials or refuses a host does. */
async function answeringProxy(status: string): Promise<{ url: URL; close: () => void }> {
  const server = createServer((socket) => {
    socket.once('data', () => socket.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\n\r\n`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: new URL(`http://127.0.0.1:${port}`), close: () => server.close() };
}

describe("a profile's own proxy (proxyUrl) refusing the tunnel", () => {
  it('a 407: name the user in proxyUrl and keep the password in the keychain, never a password in config.yaml', async () => {
    const proxy = await answeringProxy('407 Proxy Authentication Required');
    try {
      const { routeFor } = withStoredProxyPassword(fixedProxy(proxy.url, 'proxyUrl of profile "prod"'), {
        read: async () => undefined,
        setting: 'kubecred secret set prod proxy-password',
      });
      const refused = await openTunnel(routeFor(target)!, 'issuer.corp', 8443).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ProxyRouteError);
      expect((refused as ProxyRouteError).message).toContain('(from proxyUrl of profile "prod") answered 407');
      expect((refused as ProxyRouteError).hint).toBe(
        'name the user in proxyUrl of profile "prod" (http://user@host:port) and keep the password with kubecred secret set prod proxy-password',
      );
      // The same proxy from HTTPS_PROXY: the URL is the place for the user and password.
      const fromEnvironment = await openTunnel({ proxy: proxy.url, source: 'HTTPS_PROXY' }, 'issuer.corp', 8443).catch(
        (error: unknown) => error,
      );
      expect((fromEnvironment as ProxyRouteError).hint).toContain('put them in HTTPS_PROXY as http://user:password@');
    } finally {
      proxy.close();
    }
  });

  it('a refusal: NO_PROXY does not apply to a proxyUrl, so the way around it is to take it out', async () => {
    const proxy = await answeringProxy('403 Forbidden');
    try {
      const refused = await openTunnel(
        fixedProxy(proxy.url, 'proxyUrl of profile "prod"').routeFor(target)!,
        'issuer.corp',
        8443,
      ).catch((error: unknown) => error);
      expect((refused as ProxyRouteError).hint).toContain('take proxyUrl out of the profile');
      expect((refused as ProxyRouteError).hint).not.toContain('NO_PROXY');
    } finally {
      proxy.close();
    }
  });
});
