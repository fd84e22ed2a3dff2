import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { TestPki } from './demoPki.js';
import { cachedKubeBinary, stopChild, type KubeApiServer } from './realApiServer.js';

/**
 * A real kube-controller-manager beside a real kube-apiserver (realApiServer.ts), running nothing but
 * the CSR signing controller: a CertificateSigningRequest for kubernetes.io/kube-apiserver-client,
 * once approved, gets a certificate from the CA the API server trusts as --client-ca-file, so the
 * certificate authenticates at once. The binary is built once per version by
 * scripts/build-kube-apiserver.mjs --controller-manager (scripts/setup-tests.sh runs it).
 */
export interface CsrSigner {
  /** The one signer it runs. */
  readonly signerName: 'kubernetes.io/kube-apiserver-client';
  readonly pid: number;
  /** The API server's log (servers.log), the controller manager's lines marked [kube-controller-manager]. */
  log(): Promise<string>;
  stop(): Promise<void>;
}

export interface CsrSignerOptions {
  /** Its kubeconfig goes here. */
  readonly dir: string;
  /** The PKI the API server was started with: its CA signs, its system:masters client certificate logs in. */
  readonly pki: TestPki;
  readonly apiServer: KubeApiServer;
}

const SIGNER = 'kubernetes.io/kube-apiserver-client';
/** What client-go's WaitForNamedCacheSync logs once the signer's informer has listed the CSRs: it signs from here on. */
const RUNNING = /Caches are synced"? controller="?certificate-csrsigning-kube-apiserver-client/;
const READY_TIMEOUT_MS = 60_000;

/** The cached kube-controller-manager binary, or undefined when setup has not built it. */
export function kubeControllerManagerBinary(): string | undefined {
  return cachedKubeBinary('--controller-manager');
}

export function assertKubeControllerManager(): string {
  const binary = kubeControllerManagerBinary();
  if (!binary)
    throw new Error(
      'no kube-controller-manager: run scripts/setup-tests.sh (npm test runs it; it builds it into ~/.cache/kubecred/kube with node scripts/build-kube-apiserver.mjs --controller-manager)',
    );
  return binary;
}

/** A kubeconfig (JSON is valid YAML) that logs in to `server` with a client certificate, by file path. */
export function clientCertKubeconfig(opts: {
  server: string;
  caFile: string;
  certFile: string;
  keyFile: string;
}): string {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kubecred-test', cluster: { server: opts.server, 'certificate-authority': opts.caFile } }],
    users: [{ name: 'cert', user: { 'client-certificate': opts.certFile, 'client-key': opts.keyFile } }],
    contexts: [{ name: 'cert', context: { cluster: 'kubecred-test', user: 'cert' } }],
    'current-context': 'cert',
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

export async function startCsrSigner(options: CsrSignerOptions): Promise<CsrSigner> {
  const binary = assertKubeControllerManager();
  const { dir, pki, apiServer } = options;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const kubeconfig = path.join(dir, 'controller-manager.kubeconfig');
  await writeFile(
    kubeconfig,
    clientCertKubeconfig({
      server: apiServer.url,
      caFile: pki.caCertPath,
      // O=system:masters: allowed to watch CSRs, update their status and sign for any signer.
      certFile: pki.clientCertPath,
      keyFile: pki.clientKeyPath,
    }),
    { mode: 0o600 },
  );
  const args = [
    `--kubeconfig=${kubeconfig}`,
    // Its name since 1.28 (csrsigning, the old one, is an alias): nothing else runs, not even the
    // approver, so a CSR is signed only once someone approves it.
    '--controllers=certificatesigningrequest-signing-controller',
    // Only this signer's files: the other signers (kubelet-serving, kube-apiserver-client-kubelet,
    // legacy-unknown) are skipped, so nothing here signs a kubelet's certificate.
    `--cluster-signing-kube-apiserver-client-cert-file=${pki.caCertPath}`,
    `--cluster-signing-kube-apiserver-client-key-file=${path.join(pki.dir, 'ca.key')}`,
    '--leader-elect=false',
    '--use-service-account-credentials=false',
    // No serving endpoint at all (nothing asks it for /healthz or /metrics): no port to race for.
    '--bind-address=127.0.0.1',
    '--secure-port=0',
  ];
  const log = createWriteStream(apiServer.logFile, { flags: 'a' });
  let output = '';
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const record = (chunk: Buffer) => {
    const text = chunk.toString();
    // Enough of its own output to see it start, or why it did not.
    output = (output + text).slice(-64 * 1024);
    // Its pipes may still drain after it exited and stop() closed the log.
    if (!log.writableEnded) log.write(`[kube-controller-manager] ${text}`);
  };
  child.stdout.on('data', record);
  child.stderr.on('data', record);
  let failed: Error | undefined;
  child.once('error', (error) => (failed = error));
  const stop = async () => {
    if (child.pid !== undefined) await stopChild(child);
    await new Promise((resolve) => log.end(resolve));
  };

  try {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!RUNNING.test(output)) {
      if (failed) throw new Error(`kube-controller-manager could not start: ${failed.message}`);
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(
          `kube-controller-manager exited (${child.exitCode ?? child.signalCode}) before its CSR signer ran:\n${output.slice(-3000)}`,
        );
      if (Date.now() > deadline)
        throw new Error(
          `kube-controller-manager's CSR signer was not running after ${READY_TIMEOUT_MS / 1000} s:\n${output.slice(-3000)}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    signerName: SIGNER,
    pid: child.pid!,
    log: () => readFile(apiServer.logFile, 'utf8'),
    stop,
  };
}
