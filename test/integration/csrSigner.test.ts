import { execFile } from 'node:child_process';
import { X509Certificate, generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clientCertKubeconfig,
  kubeApiServerBinary,
  kubeControllerManagerBinary,
  startCsrSigner,
  startKubeApiServer,
  type CsrSigner,
  type KubeApiServer,
} from '../support/kubeApiServer.js';
import { newestKubectl, runKubectl, type KubectlBuild } from '../support/kubectl.js';
import { createTestPki, type TestPki } from '../support/pki.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const run = promisify(execFile);
const SIGNED_WITHIN_MS = 30_000;
/** The extended key usage a kube-apiserver-client certificate carries. */
const CLIENT_AUTH_OID = '1.3.6.1.5.5.7.3.2';

interface Csr {
  status?: {
    certificate?: string;
    conditions?: { type: string; status: string; reason?: string }[];
  };
}

// Checked at collection: without the binaries the file is skipped, and its title says why.
const missing = !kubeApiServerBinary()
  ? 'no kube-apiserver or etcd: run scripts/setup.sh'
  : !kubeControllerManagerBinary()
    ? 'no kube-controller-manager: run scripts/setup-tests.sh (node scripts/build-kube-apiserver.mjs --controller-manager)'
    : undefined;
const title = 'a real kube-controller-manager signs approved CSRs with the API server client CA';

// Issue 31's test world: certificates issued the way a cluster issues them, through the
// certificates.k8s.io API and the controller manager's kubernetes.io/kube-apiserver-client signer.
describe.skipIf(missing !== undefined)(missing ? `${title} (skipped: ${missing})` : title, () => {
  let kubectl: KubectlBuild;
  let home: TempHome;
  let pki: TestPki;
  let api: KubeApiServer;
  let signer: CsrSigner;
  let adminKubeconfig: string;

  const admin = async (args: string[], stdin?: string) => {
    const result = await runKubectl(kubectl.path, args, { kubeconfig: adminKubeconfig, stdin });
    expect(result.code, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
    return result.stdout;
  };
  const getCsr = async (name: string) => JSON.parse(await admin(['get', 'csr', name, '-o', 'json'])) as Csr;
  const condition = (csr: Csr, type: string) => csr.status?.conditions?.find((c) => c.type === type);

  /** A fresh EC key from node:crypto, its CSR from openssl, sent as a CertificateSigningRequest. */
  async function submit(name: string, subject: string): Promise<{ keyFile: string; publicKeyDer: Buffer }> {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const keyFile = path.join(home.dir, `${name}.key`);
    await writeFile(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    const { stdout: csrPem } = await run('openssl', ['req', '-new', '-key', keyFile, '-subj', subject]);
    const manifest = {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name },
      spec: {
        request: Buffer.from(csrPem).toString('base64'),
        signerName: 'kubernetes.io/kube-apiserver-client',
        expirationSeconds: 3600,
        usages: ['client auth'],
      },
    };
    await admin(['create', '-f', '-'], JSON.stringify(manifest));
    return { keyFile, publicKeyDer: publicKey.export({ type: 'spki', format: 'der' }) };
  }

  async function waitForCertificate(name: string): Promise<string> {
    const deadline = Date.now() + SIGNED_WITHIN_MS;
    for (;;) {
      const certificate = (await getCsr(name)).status?.certificate;
      if (certificate) return Buffer.from(certificate, 'base64').toString();
      if (Date.now() > deadline)
        throw new Error(
          `${name} had no certificate after ${SIGNED_WITHIN_MS / 1000} s:\n${(await signer.log()).slice(-3000)}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  beforeAll(async () => {
    kubectl = newestKubectl();
    home = await makeTempHome();
    pki = await createTestPki(path.join(home.dir, 'pki'));
    api = await startKubeApiServer({ dir: path.join(home.dir, 'apiserver'), pki });
    signer = await startCsrSigner({ dir: path.join(home.dir, 'signer'), pki, apiServer: api });
    adminKubeconfig = path.join(home.dir, 'admin.kubeconfig');
    await writeFile(
      adminKubeconfig,
      clientCertKubeconfig({
        server: api.url,
        caFile: api.caFile,
        certFile: pki.clientCertPath,
        keyFile: pki.clientKeyPath,
      }),
      { mode: 0o600 },
    );
  }, 180_000);

  afterAll(async () => {
    await signer?.stop();
    await api?.stop();
    await home?.cleanup();
    // Nothing left running: the controller manager, etcd and the API server are gone.
    for (const pid of [signer?.pid, ...(api?.pids ?? [])].filter((p) => p !== undefined))
      expect(() => process.kill(pid, 0)).toThrow();
  });

  it('an approved CSR gets a one-hour client certificate from the cluster CA, and the API server takes it as jane in devs', async () => {
    const { keyFile, publicKeyDer } = await submit('jane', '/CN=jane/O=devs');
    // Nothing approves on its own here (no csrapproving controller): unapproved means unsigned.
    expect((await getCsr('jane')).status?.certificate).toBeUndefined();
    await admin(['certificate', 'approve', 'jane']);
    const certPem = await waitForCertificate('jane');

    const cert = new X509Certificate(certPem);
    const ca = new X509Certificate(pki.caPem);
    expect(cert.checkIssued(ca)).toBe(true);
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.subject.split('\n').sort()).toEqual(['CN=jane', 'O=devs']);
    expect(cert.keyUsage).toEqual([CLIENT_AUTH_OID]);
    expect(cert.publicKey.export({ type: 'spki', format: 'der' })).toEqual(publicKeyDer);
    // expirationSeconds: 3600 is honoured (the signer would give a year otherwise).
    const left = Date.parse(cert.validTo) - Date.now();
    expect(left).toBeGreaterThan(3_500_000);
    expect(left).toBeLessThanOrEqual(3_600_000);

    const certFile = path.join(home.dir, 'jane.crt');
    await writeFile(certFile, certPem);
    const janeKubeconfig = path.join(home.dir, 'jane.kubeconfig');
    await writeFile(janeKubeconfig, clientCertKubeconfig({ server: api.url, caFile: api.caFile, certFile, keyFile }), {
      mode: 0o600,
    });
    const whoami = await runKubectl(kubectl.path, ['auth', 'whoami', '-o', 'json'], { kubeconfig: janeKubeconfig });
    expect(whoami.code, whoami.stderr).toBe(0);
    const { userInfo } = (
      JSON.parse(whoami.stdout) as { status: { userInfo: { username: string; groups?: string[] } } }
    ).status;
    expect(userInfo.username).toBe('jane');
    expect(userInfo.groups).toEqual(expect.arrayContaining(['devs', 'system:authenticated']));
  });

  it('a denied CSR gets a Denied condition and never a certificate', async () => {
    await submit('mallory', '/CN=mallory/O=devs');
    await admin(['certificate', 'deny', 'mallory']);
    expect(condition(await getCsr('mallory'), 'Denied')).toMatchObject({ type: 'Denied', status: 'True' });
    // The signer is not merely slow: one approved after it is signed, and mallory still is not.
    await submit('after-mallory', '/CN=after-mallory/O=devs');
    await admin(['certificate', 'approve', 'after-mallory']);
    await waitForCertificate('after-mallory');
    const mallory = await getCsr('mallory');
    expect(mallory.status?.certificate).toBeUndefined();
    expect(condition(mallory, 'Approved')).toBeUndefined();
    expect(condition(mallory, 'Denied')?.status).toBe('True');
  });
});
