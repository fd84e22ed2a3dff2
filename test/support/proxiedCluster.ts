import { writeAdminKubeconfig } from './adminKubeconfig.js';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { freePort } from '../../src/main/platform/freePort.js';
import { startTestBroker, writeConfig, type TestBroker } from './broker.js';
import { callersFor } from './callers.js';
import { startKubeApiServer, type KubeApiServer, type StaticTokenUser } from './kubeApiServer.js';
import { runKubectl, type KubectlResult } from './kubectl.js';
import { createTestPki, type TestPki } from './pki.js';
import { assertBuilt } from './repo.js';
import { createSoftHsm, createTokenClientCertificate, type SoftHsm } from './softhsm.js';
import { makeTempHome, type TempHome } from './tempHome.js';

/** A user the real API server will see, behind a key generated non-extractable on the token. */
export interface TokenUser {
  readonly profile: string;
  readonly label: string;
  /** CKA_ID, hex. */
  readonly id: string;
  /** pkcs11-tool's --key-type, e.g. rsa:2048 or EC:prime256v1. */
  readonly keyType: string;
  readonly user: string;
  readonly group: string;
  /** The profile's proxy.tlsVersion; TLS 1.3 when absent. */
  readonly tlsVersion?: '1.2' | '1.3';
}

export interface ProxiedCluster {
  readonly home: TempHome;
  readonly pki: TestPki;
  readonly api: KubeApiServer;
  readonly hsm: SoftHsm;
  readonly broker: TestBroker;
  /** The user's kubeconfig: a context per profile, each on its proxy's cluster after install. */
  readonly kubeconfig: string;
  /** Each profile's proxy port. */
  readonly ports: ReadonlyMap<string, number>;
  /** What `kubecred install` said for each profile. */
  readonly installNotes: ReadonlyMap<string, string>;
  /** A kubeconfig of the cluster's admin (system:masters, straight to the server), for setting the cluster up. */
  readonly adminKubeconfig: string;
  readonly cli: ReturnType<typeof callersFor>['cli'];
  readonly credential: ReturnType<typeof callersFor>['credential'];
  /** The environment kubectl needs to reach the broker and the token. */
  readonly env: Record<string, string>;
  kubectl(bin: string, args: string[], extraEnv?: Record<string, string>, stdin?: string): Promise<KubectlResult>;
  /** config.yaml with the proxied profiles, and any more (name, key label, port). */
  configYaml(more?: { profile: string; label: string; port: number }[]): string;
  stop(): Promise<void>;
}

/**
 * The exec proxy's world: a real kube-apiserver trusting the CA that issued the token's
 * certificates, SoftHSM2 with one non-extractable key per user, a broker with the token logged
 * in, and the user's kubeconfig with each profile installed behind its proxy.
 */
export async function startProxiedCluster(options: {
  users: readonly TokenUser[];
  pin: string;
  /**
   * The name the profiles reach the API server by (in its certificate too), where not its
   * address: a host only a corporate proxy can resolve, say.
   */
  serverHost?: string;
  /** More of the broker's environment (HTTPS_PROXY, as the person's session has it). */
  brokerEnv?: Record<string, string>;
  /** Bearer-token users the API server knows as well (--token-auth-file). */
  apiTokens?: readonly StaticTokenUser[];
}): Promise<ProxiedCluster> {
  const { users, pin } = options;
  assertBuilt({ shim: true });
  const home = await makeTempHome();
  // What started stops, in reverse, when a later part fails to start (a bench or a test that
  // cannot reach a keychain must not leave etcd, kube-apiserver and a broker behind).
  const started: Array<() => unknown> = [() => home.cleanup()];
  try {
    const pki = await createTestPki(path.join(home.dir, 'pki'), options.serverHost ? [options.serverHost] : []);
    const api = await startKubeApiServer({
      dir: path.join(home.dir, 'apiserver'),
      pki,
      ...(options.apiTokens ? { tokens: options.apiTokens } : {}),
    });
    started.push(() => api.stop());
    const server = options.serverHost ? api.url.replace('127.0.0.1', options.serverHost) : api.url;
    const hsm = await createSoftHsm({ dir: path.join(home.dir, 'hsm'), label: 'kc-proxy', pin, soPin: '27182818' });
    started.push(() => hsm.dispose());
    const ports = new Map<string, number>();
    for (const key of users) {
      await createTokenClientCertificate(hsm, pin, {
        ...key,
        subject: `/O=${key.group}/CN=${key.user}`,
        caCertPath: pki.caCertPath,
        caKeyPath: path.join(pki.dir, 'ca.key'),
        workDir: path.join(home.dir, 'certs'),
      });
      ports.set(key.profile, await freePort());
    }
    const configYaml = (more: { profile: string; label: string; port: number }[] = []) => {
      const profiles = [
        ...users.map((key) => ({
          profile: key.profile,
          label: key.label,
          port: ports.get(key.profile)!,
          tlsVersion: key.tlsVersion,
        })),
        ...more,
      ].map(
        ({ profile, label, port, tlsVersion }: { profile: string; label: string; port: number; tlsVersion?: string }) =>
          `  - name: ${profile}\n    provider: static\n    tokenCertificate: { token: hsm, label: ${label} }\n    proxy: { port: ${port}, server: "${server}", caFile: ${pki.caCertPath}${tlsVersion ? `, tlsVersion: "${tlsVersion}"` : ''} }\n`,
      );
      return `tokens:\n  - { name: hsm, module: ${hsm.module}, label: kc-proxy }\nprofiles:\n${profiles.join('')}`;
    };
    await writeConfig(home.dir, configYaml());
    // The broker reads the user's kubeconfig (written below) as kubectl does: the window's contexts, the proxy toggle.
    const broker = await startTestBroker(home.dir, {
      SOFTHSM2_CONF: hsm.conf,
      KUBECONFIG: path.join(home.dir, 'kubeconfig'),
      ...options.brokerEnv,
    });
    started.push(() => broker.stop());
    const { cli, credential } = callersFor(
      () => home.dir,
      () => ({ SOFTHSM2_CONF: hsm.conf }),
    );
    const loggedIn = await cli(['token', 'login', 'hsm'], pin);
    if (loggedIn.code !== 0) throw new Error(`kubecred token login: ${loggedIn.stderr}`);

    // As the user has it: one real cluster, and a context and an empty user per profile.
    const kubeconfig = path.join(home.dir, 'kubeconfig');
    const caData = Buffer.from(pki.caPem).toString('base64');
    await writeFile(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'real', cluster: { server, 'certificate-authority-data': caData } }],
        users: users.map((key) => ({ name: key.profile, user: {} })),
        contexts: users.map((key) => ({ name: key.profile, context: { cluster: 'real', user: key.profile } })),
        'current-context': users[0]!.profile,
      }),
      { mode: 0o600 },
    );
    const installNotes = new Map<string, string>();
    for (const key of users) {
      const installed = await cli([
        'install',
        '--profile',
        key.profile,
        '--context',
        key.profile,
        '--kubeconfig',
        kubeconfig,
      ]);
      if (installed.code !== 0) throw new Error(`kubecred install --profile ${key.profile}: ${installed.stderr}`);
      installNotes.set(key.profile, installed.stderr);
    }
    const adminKubeconfig = await writeAdminKubeconfig(path.join(home.dir, 'admin.kubeconfig'), {
      server: api.url,
      pki,
    });
    const env = { KUBECRED_HOME: home.dir, SOFTHSM2_CONF: hsm.conf };
    return {
      home,
      pki,
      api,
      hsm,
      broker,
      kubeconfig,
      ports,
      installNotes,
      adminKubeconfig,
      cli,
      credential,
      env,
      configYaml,
      kubectl: (bin, args, extraEnv = {}, stdin) =>
        runKubectl(bin, args, { kubeconfig, env: { ...env, ...extraEnv }, stdin }),
      async stop() {
        await broker.stop();
        // The broker a kubectl call started on its own, if a test killed the first.
        await cli(['stop']).catch(() => undefined);
        await api.stop();
        hsm.dispose();
        await home.cleanup();
      },
    };
  } catch (error) {
    for (const stop of started.reverse()) await Promise.resolve(stop()).catch(() => undefined);
    throw error;
  }
}
