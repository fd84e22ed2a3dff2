import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { freePort } from '../../src/main/demo/freePort.js';
import { startTestBroker, writeConfig } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { startKubeApiServer } from '../support/kubeApiServer.js';
import type { KubectlBuild } from '../support/kubectl.js';
import { createTestPki } from '../support/pki.js';
import { createSoftHsm, createTokenClientCertificate } from '../support/softhsm.js';
import { makeTempHome } from '../support/tempHome.js';
import { summarize, type Stats } from './stats.js';
import { interleave, type Subject } from './timeCommand.js';

const PIN = '112358';

export interface ExecProxyBench {
  readonly viaProxy: Stats;
  readonly direct: Stats;
  /** Through the proxy / direct mTLS with a key file, at p50. */
  readonly ratioP50: number;
  readonly proxyIdleRssMiB: number;
}

/**
 * Issue 15's speed and memory targets: warm `kubectl get --raw /version` through
 * kubecred-proxy (RSA-2048 on SoftHSM2) against a real kube-apiserver, beside the same kubectl
 * doing mTLS itself with a key file; and the proxy's resident memory afterwards.
 */
export async function execProxyBench(kubectl: KubectlBuild, runs: number): Promise<ExecProxyBench> {
  const home = await makeTempHome();
  const pki = await createTestPki(path.join(home.dir, 'pki'));
  const api = await startKubeApiServer({ dir: path.join(home.dir, 'apiserver'), pki });
  const hsm = await createSoftHsm({ dir: path.join(home.dir, 'hsm'), label: 'kc-bench', pin: PIN, soPin: '13213455' });
  const { cli } = callersFor(() => home.dir, () => ({ SOFTHSM2_CONF: hsm.conf }));
  let broker: Awaited<ReturnType<typeof startTestBroker>> | undefined;
  try {
    await createTokenClientCertificate(hsm, PIN, { label: 'tls', id: '01', keyType: 'rsa:2048', subject: '/O=system:masters/CN=bench', caCertPath: pki.caCertPath, caKeyPath: path.join(pki.dir, 'ca.key'), workDir: path.join(home.dir, 'certs') });
    const port = await freePort();
    await writeConfig(home.dir, `tokens:\n  - { name: hsm, module: ${hsm.module}, label: kc-bench }\nprofiles:\n  - name: bench\n    provider: static\n    tokenCertificate: { token: hsm, label: tls }\n    proxy: { port: ${port}, server: "${api.url}", caFile: ${pki.caCertPath} }\n`);
    broker = await startTestBroker(home.dir, { SOFTHSM2_CONF: hsm.conf });
    if ((await cli(['token', 'login', 'hsm'], PIN)).code !== 0) throw new Error('token login failed');
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    const direct = path.join(home.dir, 'direct.kubeconfig');
    await writeFile(direct, JSON.stringify({ apiVersion: 'v1', kind: 'Config', clusters: [{ name: 'c', cluster: { server: api.url, 'certificate-authority-data': b64(pki.caPem) } }], users: [{ name: 'u', user: { 'client-certificate-data': b64(pki.clientCertPem), 'client-key-data': b64(pki.clientKeyPem) } }], contexts: [{ name: 'bench', context: { cluster: 'c', user: 'u' } }], 'current-context': 'bench' }));
    const proxied = path.join(home.dir, 'proxied.kubeconfig');
    await writeFile(proxied, JSON.stringify({ apiVersion: 'v1', kind: 'Config', clusters: [{ name: 'c', cluster: { server: api.url } }], users: [{ name: 'u', user: {} }], contexts: [{ name: 'bench', context: { cluster: 'c', user: 'u' } }], 'current-context': 'bench' }));
    if ((await cli(['install', '--profile', 'bench', '--context', 'bench', '--kubeconfig', proxied])).code !== 0) throw new Error('install --proxy failed');
    const args = ['get', '--raw', '/version'];
    const env = { ...process.env, KUBECRED_HOME: home.dir, SOFTHSM2_CONF: hsm.conf };
    const subjects: Subject[] = [
      { name: `${kubectl.name} get --raw /version, mTLS with a key file`, command: kubectl.path, args, env: { ...env, KUBECONFIG: direct } },
      { name: `${kubectl.name} get --raw /version, through kubecred-proxy`, command: kubectl.path, args, env: { ...env, KUBECONFIG: proxied } },
    ];
    const samples = await interleave(subjects, runs, 3);
    const [directStats, proxyStats] = subjects.map((s) => summarize(samples.get(s.name)!));
    const proxyPid = execFileSync('ps', ['-o', 'pid=', '--ppid', String(broker.process.pid)], { encoding: 'utf8' }).trim().split('\n')[0]!.trim();
    const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${proxyPid}/status`, 'utf8'))?.[1] ?? NaN);
    return { viaProxy: proxyStats!, direct: directStats!, ratioP50: proxyStats!.p50 / directStats!.p50, proxyIdleRssMiB: rssKiB / 1024 };
  } finally {
    await broker?.stop();
    await api.stop();
    hsm.dispose();
    await home.cleanup();
  }
}
