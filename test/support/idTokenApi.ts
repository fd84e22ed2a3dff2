import https from 'node:https';
import path from 'node:path';
import { idTokenVerifier } from '../../src/main/demo/idTokenVerifier.js';
import { startApiStandIn, type ApiStandIn } from './apiServer.js';
import type { TestIssuer } from './oidcIssuer.js';
import { createTestPki } from './pki.js';

function fetchJwks(url: string, ca: string): Promise<{ keys: Array<Record<string, string>> }> {
  return new Promise((resolve, reject) => {
    https.get(url, { ca }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve(JSON.parse(body)));
    }).once('error', reject);
  });
}

/** A Kubernetes API stand-in that accepts exactly the ID tokens this issuer signs, as an API server configured for OIDC does. */
export async function startIdTokenApi(issuer: TestIssuer, pkiDir: string): Promise<ApiStandIn> {
  const { keys } = await fetchJwks(`${issuer.issuer}/jwks`, issuer.caPem);
  return startApiStandIn({ pki: await createTestPki(path.resolve(pkiDir)), auth: { verifyBearer: idTokenVerifier({ issuer: issuer.issuer, audience: issuer.clientId, keys }) } });
}
