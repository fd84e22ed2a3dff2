import https from 'node:https';
import type { ClusterInfo } from '../../shared/execCredential.js';
import type { ClusterProbe } from '../core/ports.js';

const PROBE_TIMEOUT_MS = 3_000;

/**
 * GET /version on the cluster with the token, trusting what the kubeconfig trusts. The API
 * server answers 401 to a bearer token it does not accept, even on paths anonymous users may
 * read, so 401 means "this token is dead"; anything else (200, 403, a network error) means
 * nothing is known, and the cached token stays.
 */
export class HttpsClusterProbe implements ClusterProbe {
  rejects(cluster: ClusterInfo, token: string): Promise<boolean> {
    return new Promise((resolve) => {
      let url: URL;
      try {
        url = new URL('/version', cluster.server);
      } catch {
        return resolve(false);
      }
      if (url.protocol !== 'https:') return resolve(false); // never send a token in clear
      const ca = cluster['certificate-authority-data'];
      const request = https.request(url, {
        method: 'GET',
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          'user-agent': 'kubecred-revocation-probe',
        },
        ...(ca ? { ca: Buffer.from(ca, 'base64') } : {}),
        ...(cluster['tls-server-name'] ? { servername: cluster['tls-server-name'] } : {}),
        rejectUnauthorized: cluster['insecure-skip-tls-verify'] !== true,
        timeout: PROBE_TIMEOUT_MS,
        agent: false,
      });
      request.once('response', (response) => {
        response.resume();
        resolve(response.statusCode === 401);
      });
      request.once('timeout', () => request.destroy());
      request.once('error', () => resolve(false));
      request.end();
    });
  }
}
