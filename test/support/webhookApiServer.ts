import path from 'node:path';
import { startKubeApiServer, type KubeApiServer } from './kubeApiServer.js';
import type { TestPki } from './pki.js';
import { startTokenWebhook, type TokenWebhook, type WebhookUser } from './tokenWebhook.js';

/**
 * A real kube-apiserver that asks a token webhook who each bearer token is, as an EKS cluster
 * asks aws-iam-authenticator: `kubectl auth whoami` then names whoever `authenticate` says the
 * token belongs to, so a test judges a credential by what the far side made of it.
 */
export interface WebhookApiServer {
  readonly api: KubeApiServer;
  readonly webhook: TokenWebhook;
  stop(): Promise<void>;
}

/** Both in `dir` (the API server's files under apiserver/), serving with `pki`'s certificate. */
export async function startWebhookApiServer(
  dir: string,
  pki: TestPki,
  authenticate: (token: string) => Promise<WebhookUser | undefined> | WebhookUser | undefined,
): Promise<WebhookApiServer> {
  const webhook = await startTokenWebhook(dir, pki, authenticate);
  let api: KubeApiServer;
  try {
    api = await startKubeApiServer({ dir: path.join(dir, 'apiserver'), pki, tokenWebhookConfig: webhook.configFile });
  } catch (error) {
    await webhook.close();
    throw error;
  }
  return {
    api,
    webhook,
    stop: async () => {
      await api.stop();
      await webhook.close();
    },
  };
}
