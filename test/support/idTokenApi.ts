import path from 'node:path';
import { issuerVerifier } from '../../src/main/demo/issuerVerifier.js';
import { startApiStandIn, type ApiStandIn } from './apiServer.js';
import type { TestIssuer } from './oidcIssuer.js';
import { createTestPki } from './pki.js';

/** A Kubernetes API stand-in that accepts exactly the ID tokens this issuer signs, as an API server configured for OIDC does. */
export async function startIdTokenApi(issuer: TestIssuer, pkiDir: string): Promise<ApiStandIn> {
  return startApiStandIn({
    pki: await createTestPki(path.resolve(pkiDir)),
    auth: { verifyBearer: await issuerVerifier(issuer) },
  });
}
