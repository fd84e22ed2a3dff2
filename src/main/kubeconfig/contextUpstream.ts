import path from 'node:path';
import type { KubeconfigReading } from './kubeconfigUsers.js';

/** The real API server a context reaches, and how kubectl trusts it: what the exec proxy must reach instead. */
export interface ContextUpstream {
  readonly server: string;
  /** The CA as a file kubectl reads (certificate-authority, made absolute). */
  readonly caFile?: string;
  /** The CA as kubectl has it inline (certificate-authority-data, decoded). */
  readonly caPem?: string;
  readonly tlsServerName?: string;
}

/**
 * The cluster of `context` by kubectl's merge rule (the first file that names a context or a
 * cluster wins), or undefined when the context, its cluster or the cluster's server is missing.
 */
export function contextUpstream(readings: readonly KubeconfigReading[], context: string): ContextUpstream | undefined {
  const read = readings.flatMap((r) => (r.state === 'read' ? [r] : []));
  const clusterName = read.flatMap((r) => r.contexts).find((c) => c.name === context)?.cluster;
  if (clusterName === undefined) return undefined;
  for (const reading of read) {
    const cluster = reading.clusters?.find((c) => c.name === clusterName);
    if (!cluster) continue;
    if (!cluster.server) return undefined;
    const caPem = cluster.certificateAuthorityData
      ? Buffer.from(cluster.certificateAuthorityData, 'base64').toString('utf8')
      : undefined;
    return {
      server: cluster.server,
      ...(cluster.certificateAuthority
        ? { caFile: path.resolve(path.dirname(reading.file), cluster.certificateAuthority) }
        : {}),
      ...(caPem?.includes('-----BEGIN CERTIFICATE-----') ? { caPem } : {}),
      ...(cluster.tlsServerName ? { tlsServerName: cluster.tlsServerName } : {}),
    };
  }
  return undefined;
}
