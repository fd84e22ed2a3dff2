import { writeFile } from 'node:fs/promises';
import type { TestPki } from './pki.js';

/**
 * A kubeconfig whose one context, "admin", reaches `server` as the PKI's client certificate
 * (system:masters): what a cluster admin has, and what a person enrolls or grants from.
 */
export async function writeAdminKubeconfig(
  file: string,
  options: { server: string; pki: TestPki; caPem?: string },
): Promise<string> {
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const { pki } = options;
  await writeFile(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'real',
          cluster: { server: options.server, 'certificate-authority-data': b64(options.caPem ?? pki.caPem) },
        },
      ],
      users: [
        {
          name: 'admin',
          user: { 'client-certificate-data': b64(pki.clientCertPem), 'client-key-data': b64(pki.clientKeyPem) },
        },
      ],
      contexts: [{ name: 'admin', context: { cluster: 'real', user: 'admin' } }],
      'current-context': 'admin',
    }),
    { mode: 0o600 },
  );
  return file;
}
