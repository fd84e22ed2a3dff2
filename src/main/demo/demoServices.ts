import path from 'node:path';
import { startApiStandIn } from './apiStandIn.js';
import { createTestPki, type TestPki } from './demoPki.js';
import { issuerVerifier } from './issuerVerifier.js';
import { startTestIssuer, type TestIssuer } from './localIssuer.js';
import { kubeApiServerBinary, startKubeApiServer } from './realApiServer.js';

/** The cluster kubectl reaches: a real kube-apiserver when one is built, else the stand-in. */
export interface DemoApi {
  readonly url: string;
  readonly caPem: string;
  /** What it is, for the banner. */
  readonly description: string;
  /** What kubectl runs to show that the server took the credential. */
  readonly check: readonly string[];
  close(): Promise<void>;
}

export interface DemoServices {
  readonly api: DemoApi;
  readonly issuer: TestIssuer | undefined;
  /** Why there is no OIDC part (the issuer's package is a development dependency). */
  readonly issuerProblem: string | undefined;
  close(): Promise<void>;
}

/**
 * The demo's outside world: a local OIDC issuer (oidc-provider), and a Kubernetes API that
 * accepts the demo's static token or an ID token signed by that issuer: a real kube-apiserver
 * with etcd when scripts/setup.sh built one, else the stand-in.
 */
export async function startDemoServices(home: string, staticToken: string): Promise<DemoServices> {
  let issuer: TestIssuer | undefined;
  let issuerProblem: string | undefined;
  try {
    issuer = await startTestIssuer({ dir: path.join(home, 'demo-issuer') });
  } catch (error) {
    issuerProblem = `the local OIDC issuer could not start (${(error as Error).message.split('\n')[0]}); run npm ci for the development dependencies`;
  }
  const pki = await createTestPki(path.join(home, 'demo-pki'));
  const api = kubeApiServerBinary()
    ? await realApi(home, pki, staticToken, issuer)
    : await standIn(pki, staticToken, issuer);
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

async function realApi(
  home: string,
  pki: TestPki,
  staticToken: string,
  issuer: TestIssuer | undefined,
): Promise<DemoApi> {
  const server = await startKubeApiServer({
    dir: path.join(home, 'demo-apiserver'),
    pki,
    tokens: [{ token: staticToken, user: 'demo', groups: ['system:masters'] }],
    ...(issuer ? { oidc: { issuer: issuer.issuer, clientId: issuer.clientId, caFile: issuer.caFile } } : {}),
  });
  return {
    url: server.url,
    caPem: server.caPem,
    description: `a real kube-apiserver ${server.gitVersion} with etcd: it decides who you are`,
    check: ['auth', 'whoami'],
    close: server.stop,
  };
}

async function standIn(pki: TestPki, staticToken: string, issuer: TestIssuer | undefined): Promise<DemoApi> {
  const verifyIdToken = issuer ? await issuerVerifier(issuer) : () => false;
  const api = await startApiStandIn({
    pki,
    auth: { verifyBearer: (token) => token === staticToken || verifyIdToken(token) },
  });
  return {
    url: api.url,
    caPem: api.caPem,
    description:
      'a local stand-in: accepts the demo token, or an ID token from the issuer; scripts/setup.sh builds a real kube-apiserver',
    check: ['get', '--raw', '/version'],
    close: () => api.close(),
  };
}
