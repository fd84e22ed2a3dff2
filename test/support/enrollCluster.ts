import path from 'node:path';
import { startCsrSigner, type CsrSigner } from '../../src/main/demo/csrSigner.js';
import { writeAdminKubeconfig } from './adminKubeconfig.js';
import { startKubeApiServer, type KubeApiServer } from './kubeApiServer.js';
import { createTestPki, type TestPki } from './pki.js';
import { createSoftHsm, type SoftHsm } from './softhsm.js';

export interface EnrollCluster {
  readonly pki: TestPki;
  readonly api: KubeApiServer;
  readonly signer: CsrSigner;
  /** A blank token: initialised with its PIN, nothing on it. */
  readonly hsm: SoftHsm;
  /** What the person has before enrolling: one context, "admin", that reaches the cluster. */
  readonly kubeconfig: string;
  stop(): Promise<void>;
}

/**
 * The world `kubecred enroll` meets, from the terminal or the window: a real kube-apiserver, a
 * real kube-controller-manager signing client certificates with the cluster's CA, a blank
 * SoftHSM2 token and an admin's kubeconfig, all under `dir`.
 */
export async function startEnrollCluster(dir: string, token: { label: string; pin: string }): Promise<EnrollCluster> {
  const pki = await createTestPki(path.join(dir, 'pki'));
  const api = await startKubeApiServer({ dir: path.join(dir, 'apiserver'), pki });
  const signer = await startCsrSigner({ dir: path.join(dir, 'signer'), pki, apiServer: api }).catch(async (error) => {
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
