import path from 'node:path';
import { startKubeApiServer, type KubeApiServer } from './kubeApiServer.js';
import { startKeystoneStandIn, type KeystoneStandIn } from './keystoneStandIn.js';
import { createTestPki } from './pki.js';
import { startTokenWebhook, type TokenWebhook } from './tokenWebhook.js';

/** Keystone, and a real kube-apiserver that trusts what Keystone honours (as k8s-keystone-auth makes it). */
export interface KeystoneCluster {
  readonly keystone: KeystoneStandIn;
  readonly webhook: TokenWebhook;
  readonly api: KubeApiServer;
  /** Stops what started, in reverse. */
  stop(): Promise<void>;
}

/** The Keystone stand-in, a webhook token authenticator asking it, and kube-apiserver with that webhook; alice is "keystone:alice". */
export async function startKeystoneCluster(dir: string): Promise<KeystoneCluster> {
  const started: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const close of started.splice(0).reverse()) await close();
  };
  try {
    const keystone = await startKeystoneStandIn();
    started.push(() => keystone.close());
    const pki = await createTestPki(path.join(dir, 'pki'));
    const webhook = await startTokenWebhook(dir, pki, (token) =>
      keystone.accepts(token) ? { username: 'keystone:alice', groups: ['keystone:demo'] } : undefined,
    );
    started.push(() => webhook.close());
    const api = await startKubeApiServer({
      dir: path.join(dir, 'apiserver'),
      pki,
      tokenWebhookConfig: webhook.configFile,
    });
    started.push(() => api.stop());
    return { keystone, webhook, api, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
