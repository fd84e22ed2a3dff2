import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { pointContextAtProxy } from '../../../src/main/kubeconfig/proxyCluster.js';

const KUBECONFIG = `# team clusters
clusters:
- name: prod # the real one
  cluster:
    server: https://prod.example:6443
contexts:
- name: prod
  context:
    cluster: prod
    user: prod
- name: prod-admin
  context:
    cluster: prod
    user: admin
`;

describe('install --proxy: a context pointed at kubecred-proxy', () => {
  it('gets a cluster of its own on the listener; the real cluster, its other contexts and the comments stay', () => {
    const doc = parseDocument(KUBECONFIG);
    pointContextAtProxy(doc, 'prod', 'prod', { server: 'https://127.0.0.1:47011', caPem: 'LOCAL CA' });
    const json = doc.toJS() as {
      clusters: Array<{ name: string; cluster: Record<string, string> }>;
      contexts: Array<{ name: string; context: { cluster: string } }>;
    };
    expect(json.clusters).toEqual([
      { name: 'prod', cluster: { server: 'https://prod.example:6443' } },
      {
        name: 'kubecred-proxy-prod',
        cluster: {
          server: 'https://127.0.0.1:47011',
          'certificate-authority-data': Buffer.from('LOCAL CA').toString('base64'),
        },
      },
    ]);
    expect(json.contexts.map((c) => [c.name, c.context.cluster])).toEqual([
      ['prod', 'kubecred-proxy-prod'],
      ['prod-admin', 'prod'],
    ]);
    expect(doc.toString()).toContain('# the real one');
  });

  it('run again (a new port, a new CA), updates its cluster in place and drops settings that would bypass it', () => {
    const doc = parseDocument(KUBECONFIG);
    pointContextAtProxy(doc, 'prod', 'prod', { server: 'https://127.0.0.1:47011', caPem: 'OLD' });
    const proxied = (doc.toJS() as { clusters: unknown[] }).clusters.length;
    (doc.getIn(['clusters', 1, 'cluster'], true) as { set(k: string, v: unknown): void }).set(
      'proxy-url',
      'http://corp-proxy:3128',
    );
    pointContextAtProxy(doc, 'prod', 'prod', { server: 'https://127.0.0.1:47012', caPem: 'NEW' });
    const json = doc.toJS() as { clusters: Array<{ name: string; cluster: Record<string, string> }> };
    expect(json.clusters).toHaveLength(proxied);
    expect(json.clusters[1]).toEqual({
      name: 'kubecred-proxy-prod',
      cluster: {
        server: 'https://127.0.0.1:47012',
        'certificate-authority-data': Buffer.from('NEW').toString('base64'),
      },
    });
  });
});
