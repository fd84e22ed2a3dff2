import path from 'node:path';
import type { ApiStandIn } from './apiServer.js';
import { startTestBroker, writeConfig, type TestBroker } from './broker.js';
import { startBrowser, type BrowserDriver } from './browserDriver.js';
import { startIdTokenApi } from './idTokenApi.js';
import { writeExecKubeconfig } from './kubeconfig.js';
import { startTestIssuer, type TestIssuer } from './oidcIssuer.js';
import { NATIVE_SHIM, assertBuilt } from './repo.js';
import { makeTempHome, type TempHome } from './tempHome.js';

/** kubectl with one OIDC profile "sso": a real issuer, an API server that checks its ID tokens, a broker, a browser. */
export interface OidcKubectlWorld {
  readonly home: TempHome;
  readonly issuer: TestIssuer;
  readonly api: ApiStandIn;
  readonly broker: TestBroker;
  /** Chromium, to sign in on the issuer's pages. */
  readonly browser: BrowserDriver;
  /** Runs the native shim for profile "sso" with the world's KUBECRED_HOME. */
  readonly kubeconfig: string;
  close(): Promise<void>;
}

export async function startOidcKubectlWorld(options: {
  /** More lines of the "sso" profile in config.yaml (indented as its fields). */
  readonly profileLines?: readonly string[];
  /** The broker's environment beyond KUBECRED_HOME (where it opens a browser, or that it cannot), given the home. */
  readonly brokerEnv: (homeDir: string) => Promise<Record<string, string>> | Record<string, string>;
  readonly interactiveMode?: 'IfAvailable' | 'Never' | 'Always';
  /** How long the issuer's ID tokens last (an hour unless set), for journeys that need one to run out. */
  readonly idTokenTtlSeconds?: number;
}): Promise<OidcKubectlWorld> {
  assertBuilt({ shim: true });
  // Whatever started is stopped, in reverse, by close() or when a later part fails to start.
  const started: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const stop of started.splice(0).reverse()) await stop();
  };
  try {
    const home = await makeTempHome();
    started.push(() => home.cleanup());
    const issuer = await startTestIssuer({
      dir: path.join(home.dir, 'issuer'),
      ...(options.idTokenTtlSeconds ? { idTokenTtlSeconds: options.idTokenTtlSeconds } : {}),
    });
    started.push(() => issuer.stop());
    const api = await startIdTokenApi(issuer, path.join(home.dir, 'api-pki'));
    started.push(() => api.close());
    const fields = [
      `issuer: ${issuer.issuer}`,
      `clientId: ${issuer.clientId}`,
      `caFile: ${issuer.caFile}`,
      ...(options.profileLines ?? []),
    ];
    await writeConfig(
      home.dir,
      `profiles:\n  - name: sso\n    provider: oidc\n${fields.map((line) => `    ${line}\n`).join('')}`,
    );
    const broker = await startTestBroker(home.dir, await options.brokerEnv(home.dir));
    started.push(async () => void (await broker.stop()));
    const browser = await startBrowser();
    started.push(() => browser.close());
    const kubeconfig = await writeExecKubeconfig({
      path: path.join(home.dir, 'kubeconfig'),
      server: api.url,
      caPem: api.caPem,
      command: NATIVE_SHIM,
      args: ['credential', 'sso'],
      apiVersion: 'client.authentication.k8s.io/v1',
      env: { KUBECRED_HOME: home.dir },
      provideClusterInfo: true,
      ...(options.interactiveMode ? { interactiveMode: options.interactiveMode } : {}),
    });
    return { home, issuer, api, broker, browser, kubeconfig, close };
  } catch (error) {
    await close();
    throw error;
  }
}
