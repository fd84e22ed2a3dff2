import { describe, expect, it } from 'vitest';
import { ProxyRouteError, tunnelTrustError } from '../../../src/main/platform/proxyTunnel.js';

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
