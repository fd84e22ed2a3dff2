import path from 'node:path';
import { startCorporateProxy, type CorporateProxy } from './corporateProxy.js';
import { startTestIssuer, type TestIssuer } from './oidcIssuer.js';

/**
 * A real OIDC issuer named `hostname`, and a real proxy (tinyproxy with Basic auth) for which
 * alone that name resolves: a client reaches the issuer through the proxy or not at all.
 */
export async function startIssuerBehindProxy(
  dir: string,
  hostname: string,
  basicAuth: { readonly user: string; readonly password: string },
): Promise<{ issuer: TestIssuer; proxy: CorporateProxy }> {
  const issuer = await startTestIssuer({ dir: path.join(dir, 'issuer'), hostname });
  const proxy = await startCorporateProxy({
    dir: path.join(dir, 'proxy'),
    hosts: { [hostname]: '127.0.0.1' },
    basicAuth,
  });
  return { issuer, proxy };
}

/** The proxy's URL with a user and password in it, as a person writes HTTPS_PROXY (the password URL-encoded). */
export function proxyUrlWith(proxy: CorporateProxy, user: string, password: string): string {
  return `http://${user}:${encodeURIComponent(password)}@${new URL(proxy.url).host}`;
}
