import path from 'node:path';
import { startApiStandIn, type ApiStandIn } from './apiStandIn.js';
import { createTestPki } from './demoPki.js';
import { issuerVerifier } from './issuerVerifier.js';
import { startTestIssuer, type TestIssuer } from './localIssuer.js';

export interface DemoServices {
  readonly api: ApiStandIn;
  readonly issuer: TestIssuer | undefined;
  /** Why there is no OIDC part (the issuer's package is a development dependency). */
  readonly issuerProblem: string | undefined;
  close(): Promise<void>;
}

/**
 * The demo's outside world: a local OIDC issuer (oidc-provider), and a Kubernetes API
 * stand-in that accepts the demo's static token or an ID token signed by that issuer.
 */
export async function startDemoServices(home: string, staticToken: string): Promise<DemoServices> {
  let issuer: TestIssuer | undefined;
  let issuerProblem: string | undefined;
  try {
    issuer = await startTestIssuer({ dir: path.join(home, 'demo-issuer') });
  } catch (error) {
    issuerProblem = `the local OIDC issuer could not start (${(error as Error).message.split('\n')[0]}); run npm ci for the development dependencies`;
  }
  const verifyIdToken = issuer ? await issuerVerifier(issuer) : () => false;
  const api = await startApiStandIn({
    pki: await createTestPki(path.join(home, 'demo-pki')),
    auth: { verifyBearer: (token) => token === staticToken || verifyIdToken(token) },
  });
  return {
    api,
    issuer,
    issuerProblem,
    close: async () => {
      await api.close();
      await issuer?.stop();
    },
  };
}

