import https from 'node:https';
import { idTokenVerifier } from './idTokenVerifier.js';
import type { TestIssuer } from './localIssuer.js';

/** Checks bearer ID tokens against this issuer's published keys, as an API server set up for it does. */
export async function issuerVerifier(issuer: TestIssuer): Promise<(token: string) => boolean> {
  const { keys } = await getJson(`${issuer.issuer}/jwks`, issuer.caPem);
  return idTokenVerifier({ issuer: issuer.issuer, audience: issuer.clientId, keys });
}

function getJson(url: string, ca: string): Promise<{ keys: Array<Record<string, string>> }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => {
          try {
            resolve(JSON.parse(body));
          } catch (error) {
            reject(error as Error);
          }
        });
      })
      .once('error', reject);
  });
}
