import path from 'node:path';
import { freePort } from '../../src/main/platform/freePort.js';
import { writeAdminKubeconfig } from './adminKubeconfig.js';
import { startTestBroker, writeConfig, type TestBroker } from './broker.js';
import { callersFor } from './callers.js';
import { writeUninstalledKubeconfig } from './kubeconfig.js';
import { startKubeApiServer, type KubeApiServer, type StaticTokenUser } from './kubeApiServer.js';
import { runKubectl, type KubectlResult } from './kubectl.js';
import { createTestPki, type TestPki } from './pki.js';
import { assertBuilt } from './repo.js';
import { startTestNode, type TestNode } from './testKubelet.js';
import { makeTempHome, type TempHome } from './tempHome.js';

/** A profile whose own bearer token goes upstream from kubecred-proxy (issue 33). */
export interface GuardedCluster {
  readonly home: TempHome;
  readonly pki: TestPki;
  readonly api: KubeApiServer;
  readonly node: TestNode;
  readonly broker: TestBroker;
  readonly kubeconfig: string;
  readonly adminKubeconfig: string;
  readonly port: number;
  readonly env: Record<string, string>;
  readonly cli: ReturnType<typeof callersFor>['cli'];
  /** config.yaml's profile with this guard (YAML after `guard:`), or none. */
  setGuard(guard: string | undefined): Promise<void>;
  kubectl(args: string[], stdin?: string, extraEnv?: Record<string, string>): Promise<KubectlResult>;
  admin(args: string[], stdin?: string): Promise<KubectlResult>;
  stop(): Promise<void>;
}

/**
 * A real kube-apiserver that knows `users` by bearer token (the first one's is stored), a node
 * with a running pod "app", a broker with profile `profile` (static, its token in the keychain,
 * proxy: on), and the user's kubeconfig installed for it: kubectl holds no credential.
 */
export async function startGuardedCluster(options: {
  profile: string;
  users: readonly StaticTokenUser[];
  kubectl: string;
  guard?: string;
  /** The API server keeps its audit log (api.auditLog): what really arrived. */
  audit?: boolean;
  /** The broker's own flags and environment (`--ui`, a browser stand-in). */
  broker?: { readonly args?: string[]; readonly env?: Record<string, string> };
}): Promise<GuardedCluster> {
  assertBuilt({ shim: true });
  const { profile, users, kubectl } = options;
  const home = await makeTempHome();
  const started: Array<() => unknown> = [() => home.cleanup()];
  try {
    const pki = await createTestPki(path.join(home.dir, 'pki'));
    const api = await startKubeApiServer({
      dir: path.join(home.dir, 'apiserver'),
      pki,
      tokens: users,
      ...(options.audit ? { audit: true } : {}),
    });
    started.push(() => api.stop());
    const adminKubeconfig = await writeAdminKubeconfig(path.join(home.dir, 'admin.kubeconfig'), {
      server: api.url,
      pki,
    });
    const admin = (args: string[], stdin?: string) => runKubectl(kubectl, args, { kubeconfig: adminKubeconfig, stdin });
    for (const user of users) {
      const bound = await admin([
        'create',
        'clusterrolebinding',
        `${user.user}-admin`,
        '--clusterrole=cluster-admin',
        `--user=${user.user}`,
      ]);
      if (bound.code !== 0) throw new Error(`binding ${user.user}: ${bound.stderr}`);
    }
    const node = await startTestNode({ dir: path.join(home.dir, 'node'), pki, adminKubeconfig, kubectl });
    started.push(() => node.stop());
    const port = await freePort();
    const configYaml = (guard: string | undefined) =>
      `profiles:\n  - name: ${profile}\n    provider: static\n    proxy: { port: ${port}, server: "${api.url}", caFile: ${pki.caCertPath} }\n${guard ? `    guard: ${guard}\n` : ''}`;
    await writeConfig(home.dir, configYaml(options.guard));
    const kubeconfig = path.join(home.dir, 'kubeconfig');
    const broker = await startTestBroker(
      home.dir,
      { KUBECONFIG: kubeconfig, ...options.broker?.env },
      options.broker?.args ?? [],
    );
    started.push(() => broker.stop());
    const { cli } = callersFor(() => home.dir);
    const stored = await cli(['secret', 'set', profile, 'token'], users[0]!.token);
    if (stored.code !== 0) throw new Error(`kubecred secret set: ${stored.stderr}`);
    await writeUninstalledKubeconfig(kubeconfig, { server: api.url, caPem: pki.caPem }, profile);
    const installed = await cli(['install', '--profile', profile, '--context', profile, '--kubeconfig', kubeconfig]);
    if (installed.code !== 0) throw new Error(`kubecred install: ${installed.stderr}`);
    const env = { KUBECRED_HOME: home.dir };
    return {
      home,
      pki,
      api,
      node,
      broker,
      kubeconfig,
      adminKubeconfig,
      port,
      env,
      cli,
      // The broker reads config.yaml anew on the next request; the proxy hears of it then.
      setGuard: (guard) => writeConfig(home.dir, configYaml(guard)),
      kubectl: (args, stdin, extraEnv = {}) =>
        runKubectl(kubectl, args, { kubeconfig, env: { ...env, ...extraEnv }, stdin }),
      admin,
      async stop() {
        for (const stop of started.reverse()) await Promise.resolve(stop()).catch(() => undefined);
      },
    };
  } catch (error) {
    for (const stop of started.reverse()) await Promise.resolve(stop()).catch(() => undefined);
    throw error;
  }
}
