import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { TestPki } from './pki.js';

export interface WebhookUser {
  readonly username: string;
  readonly groups?: readonly string[];
}

export interface TokenWebhook {
  /** The kubeconfig kube-apiserver reads (--authentication-token-webhook-config-file). */
  readonly configFile: string;
  /** TokenReviews answered, accepted or not. */
  readonly reviews: number;
  close(): Promise<void>;
}

/**
 * A webhook token authenticator, as k8s-keystone-auth or aws-iam-authenticator is for a real
 * cluster: kube-apiserver posts each bearer token it does not know as a TokenReview, and this
 * answers with the user `authenticate` finds, or not authenticated.
 */
export async function startTokenWebhook(
  dir: string,
  pki: TestPki,
  authenticate: (token: string) => Promise<WebhookUser | undefined> | WebhookUser | undefined,
): Promise<TokenWebhook> {
  let reviews = 0;
  const server = createServer({ key: pki.serverKeyPem, cert: pki.serverCertPem }, (request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      void (async () => {
        reviews++;
        const review = JSON.parse(body) as { apiVersion: string; spec?: { token?: string } };
        const user = review.spec?.token ? await authenticate(review.spec.token) : undefined;
        const status = user
          ? { authenticated: true, user: { username: user.username, groups: [...(user.groups ?? [])] } }
          : { authenticated: false };
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'TokenReview', status }));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const configFile = path.join(dir, 'token-webhook.kubeconfig');
  await writeFile(
    configFile,
    `apiVersion: v1\nkind: Config\nclusters:\n- name: webhook\n  cluster: {server: 'https://127.0.0.1:${port}/authenticate', certificate-authority: '${pki.caCertPath}'}\nusers:\n- name: apiserver\n  user: {}\ncontexts:\n- name: webhook\n  context: {cluster: webhook, user: apiserver}\ncurrent-context: webhook\n`,
  );
  return {
    configFile,
    get reviews() {
      return reviews;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
