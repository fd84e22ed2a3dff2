import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contextUpstream } from '../../../src/main/kubeconfig/contextUpstream.js';
import { parseKubeconfigUsers, type KubeconfigReading } from '../../../src/main/kubeconfig/kubeconfigUsers.js';

const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

function reading(file: string, text: string): KubeconfigReading {
  const parsed = parseKubeconfigUsers(text);
  if ('error' in parsed) throw new Error(parsed.error);
  return { file, state: 'read', mode: 0o600, ...parsed };
}

// The exec proxy turned on from the window reaches what the context reached: its cluster's
// server, CA and TLS name, by kubectl's merge rule.
describe("a context's upstream, as kubectl would reach it", () => {
  const first = reading(
    '/home/ada/.kube/config',
    `clusters:
- name: prod
  cluster: { server: https://prod.example:6443, certificate-authority: certs/prod-ca.pem, tls-server-name: api.prod }
contexts:
- name: prod
  context: { cluster: prod, user: u }
- name: lab
  context: { cluster: lab, user: u }
`,
  );
  const second = reading(
    '/etc/kube/shared',
    `clusters:
- name: prod
  cluster: { server: https://shadowed.example:6443 }
- name: lab
  cluster: { server: https://lab.example:6443, certificate-authority-data: ${Buffer.from(CA).toString('base64')} }
- name: plain
  cluster: { certificate-authority-data: bm90IGEgY2VydA== }
contexts:
- name: plain
  context: { cluster: plain, user: u }
`,
  );

  it('takes the first file that names the cluster, a CA path made absolute from its file, and its TLS name', () => {
    expect(contextUpstream([first, second], 'prod')).toEqual({
      server: 'https://prod.example:6443',
      // Made absolute by this machine's rules (a drive letter and backslashes on Windows).
      caFile: path.resolve('/home/ada/.kube/certs/prod-ca.pem'),
      tlsServerName: 'api.prod',
    });
  });

  it('decodes an inline CA, from a later file when the first does not name the cluster', () => {
    expect(contextUpstream([first, second], 'lab')).toEqual({ server: 'https://lab.example:6443', caPem: CA });
  });

  it('gives nothing for a missing context or a cluster without a server, and ignores inline data that is no certificate', () => {
    expect(contextUpstream([first, second], 'nope')).toBeUndefined();
    expect(contextUpstream([first, second], 'plain')).toBeUndefined();
    expect(contextUpstream([{ file: '/x', state: 'missing' }], 'prod')).toBeUndefined();
  });
});
