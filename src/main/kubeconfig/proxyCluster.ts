import { isSeq, type Document } from 'yaml';
import { namedEntries } from './kubeconfigDocument.js';

/** Where kubectl reaches a proxied profile: its listener, trusted through Kubecred's local CA. */
export interface ProxyCluster {
  /** `https://127.0.0.1:<port>` */
  readonly server: string;
  readonly caPem: string;
}

/** The cluster entry install writes for a proxied profile (its own: other contexts of the real cluster stay as they are). */
export function proxyClusterName(profile: string): string {
  return `kubecred-proxy-${profile}`;
}

/**
 * Points a context at the proxy: a cluster entry of its own (created, or updated in place so
 * comments on it stay) naming the listener and the local CA, and the context's cluster set to
 * it. The real cluster's entry is left for the contexts that do not go through the proxy.
 */
export function pointContextAtProxy(doc: Document, contextName: string, profile: string, proxy: ProxyCluster): void {
  const name = proxyClusterName(profile);
  const body = { server: proxy.server, 'certificate-authority-data': Buffer.from(proxy.caPem).toString('base64') };
  const existing = namedEntries(doc, 'clusters').find((entry) => entry.name === name);
  if (existing?.body) {
    for (const key of ['certificate-authority', 'tls-server-name', 'insecure-skip-tls-verify', 'proxy-url'])
      existing.body.delete(key);
    for (const [key, value] of Object.entries(body)) existing.body.set(key, value);
  } else {
    const clusters = doc.get('clusters', true);
    const entry = doc.createNode({ name, cluster: body });
    if (isSeq(clusters)) clusters.add(entry);
    else doc.set('clusters', doc.createNode([{ name, cluster: body }]));
  }
  const context = namedEntries(doc, 'contexts').find((entry) => entry.name === contextName);
  if (context?.body) context.body.set('cluster', name);
  else if (context) context.item.set('context', doc.createNode({ cluster: name }));
}
