import path from 'node:path';
import { startCorporateProxy, type CorporateProxy } from './corporateProxy.js';
import { startKeystoneStandIn, type KeystoneStandIn } from './keystoneStandIn.js';
import { createTestPki } from './pki.js';

/** The name Keystone answers to, resolvable only inside the proxy's private /etc/hosts. */
export const KEYSTONE_HOST = 'keystone.kubecred.test';

export interface KeystoneBehindProxy {
  readonly keystone: KeystoneStandIn;
  readonly proxy: CorporateProxy;
  /** Keystone's URL by the name only the proxy resolves. */
  readonly authUrl: string;
  /** The CA that signed Keystone's certificate, for the profile's caFile. */
  readonly caCertPath: string;
}

/** A Keystone (TLS) that a client reaches through a tinyproxy or not at all. */
export async function startKeystoneBehindProxy(dir: string): Promise<KeystoneBehindProxy> {
  const pki = await createTestPki(path.join(dir, 'pki'), [KEYSTONE_HOST]);
  const keystone = await startKeystoneStandIn({ tls: { certPem: pki.serverCertPem, keyPem: pki.serverKeyPem } });
  const proxy = await startCorporateProxy({ dir: path.join(dir, 'proxy'), hosts: { [KEYSTONE_HOST]: '127.0.0.1' } });
  return {
    keystone,
    proxy,
    authUrl: keystone.authUrl.replace('127.0.0.1', KEYSTONE_HOST),
    caCertPath: pki.caCertPath,
  };
}
