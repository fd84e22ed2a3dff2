import path from 'node:path';
import { writeConfig } from './broker.js';
import { assumedRoleOf, startMotoSts, writeAwsFiles, type MotoSts } from './motoSts.js';
import { createTestPki, type TestPki } from './pki.js';
import { writeShimKubeconfig } from './shimKubeconfig.js';
import { startWebhookApiServer } from './webhookApiServer.js';

/**
 * kubectl with an eks profile "eks" that assumes a role as alice: moto as STS over TLS under a
 * name that resolves nowhere until a proxy's hosts file names it (so AssumeRole goes through the
 * proxy or not at all), and a real kube-apiserver whose webhook names the role of the session
 * moto handed out, so `kubectl auth whoami` says whether the broker really assumed it.
 */
export interface EksRoleWorld {
  /** The CA of STS's and the API server's certificates: whatever reaches STS must trust it. */
  readonly pki: TestPki;
  readonly moto: MotoSts;
  /** STS's port, in what a proxy logs for it beside the name. */
  readonly stsPort: string;
  /** The person's AWS files, as the broker's environment names them. */
  readonly awsEnv: Readonly<Record<string, string>>;
  /** Runs the native shim for profile "eks"; KUBECRED_HOME comes from kubectl's environment. */
  readonly kubeconfig: string;
  stop(): Promise<void>;
}

/** Everything in `home`, whose config.yaml it writes. */
export async function startEksRoleWorld(
  home: string,
  options: { readonly stsHost: string; readonly role: string },
): Promise<EksRoleWorld> {
  // Whatever started is stopped, in reverse, by stop() or when a later part fails to start.
  const started: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const stopOne of started.splice(0).reverse()) await stopOne();
  };
  try {
    const pki = await createTestPki(path.join(home, 'pki'), [options.stsHost]);
    const moto = await startMotoSts({ tls: { certPem: pki.serverCertPem, keyPem: pki.serverKeyPem } });
    started.push(() => moto.stop());
    const stsPort = new URL(moto.url).port;
    await writeAwsFiles(
      home,
      moto,
      [options.role],
      `[profile deployer]\nrole_arn = ${options.role}\nsource_profile = alice\nrole_session_name = alice\n`,
    );
    const cluster = await startWebhookApiServer(home, pki, (token) => assumedRoleOf(moto, token));
    started.push(() => cluster.stop());
    // No caFile: how the broker comes to trust STS is each test's to set.
    await writeConfig(
      home,
      `profiles:\n  - { name: eks, provider: eks, clusterId: prod, region: eu-west-1, awsProfile: deployer, stsEndpoint: "https://${options.stsHost}:${stsPort}/" }\n`,
    );
    const kubeconfig = await writeShimKubeconfig(
      path.join(home, 'eks.kubeconfig'),
      cluster.api,
      'eks',
      'client.authentication.k8s.io/v1beta1',
    );
    const awsEnv = {
      AWS_CONFIG_FILE: path.join(home, 'aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: path.join(home, 'aws-credentials'),
    };
    return { pki, moto, stsPort, awsEnv, kubeconfig, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
