import path from 'node:path';
import { startCsrSigner } from '../../src/main/demo/csrSigner.js';
import { writeAdminKubeconfig } from './adminKubeconfig.js';
import { startKubeApiServer, type KubeApiServer } from './kubeApiServer.js';
import { startOwnCsrSigner, type OwnCsrSignerOptions } from './ownCsrSigner.js';
import { createTestPki, type TestPki } from './pki.js';
import { createSoftHsm, type SoftHsm } from './softhsm.js';

export interface EnrollCluster {
  readonly pki: TestPki;
  readonly api: KubeApiServer;
  /** kube-controller-manager's signer, or the test's own (ownCsrSigner.ts). */
  readonly signer: { stop(): Promise<void> };
  /** A blank token: initialised with its PIN, nothing on it. */
  readonly hsm: SoftHsm;
  /** What the person has before enrolling: one context, "admin", that reaches the cluster. */
  readonly kubeconfig: string;
  stop(): Promise<void>;
}

/** In place of kube-controller-manager: the test's own signer, deciding each request as `decide` says. */
export type OwnSigner = Pick<OwnCsrSignerOptions, 'kubectl' | 'decide' | 'pollMs'>;

/**
 * The world `kubecred enroll` meets, from the terminal or the window: a real kube-apiserver, a
 * signer issuing client certificates with the cluster's CA (a real kube-controller-manager, or
 * the test's own), a blank SoftHSM2 token and an admin's kubeconfig, all under `dir`.
 */
export async function startEnrollCluster(
  dir: string,
  token: { label: string; pin: string },
  ownSigner?: OwnSigner,
): Promise<EnrollCluster> {
  const pki = await createTestPki(path.join(dir, 'pki'));
  const api = await startKubeApiServer({ dir: path.join(dir, 'apiserver'), pki });
  // The signer's kubeconfig is its own: the person's is rewritten by enroll.
  const signerKubeconfig = await writeAdminKubeconfig(path.join(dir, 'signer-kubeconfig'), { server: api.url, pki });
  const started = ownSigner
    ? startOwnCsrSigner({ ...ownSigner, adminKubeconfig: signerKubeconfig, pki, dir: path.join(dir, 'own-signer') })
    : startCsrSigner({ dir: path.join(dir, 'signer'), pki, apiServer: api });
  const signer = await started.catch(async (error: unknown) => {
    await api.stop();
    throw error;
  });
  const hsm = await createSoftHsm({
    dir: path.join(dir, 'hsm'),
    label: token.label,
    pin: token.pin,
    soPin: '27182818',
  });
  const kubeconfig = await writeAdminKubeconfig(path.join(dir, 'kubeconfig'), { server: api.url, pki });
  return {
    pki,
    api,
    signer,
    hsm,
    kubeconfig,
    async stop() {
      await signer.stop();
      await api.stop();
      hsm.dispose();
    },
  };
}
