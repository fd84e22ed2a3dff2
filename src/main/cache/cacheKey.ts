import { createHash } from 'node:crypto';
import type { ClusterInfo } from '../../shared/execCredential.js';

/**
 * A credential is cached per profile and per cluster the caller named: the same profile
 * used against two clusters (provideClusterInfo) must not share a token.
 */
export function credentialCacheKey(profile: string, cluster: ClusterInfo | undefined): string {
  return `${profile}\u0000${createHash('sha256')
    .update(canonicalJson(cluster ?? null))
    .digest('hex')}`;
}

export function profileOfCacheKey(key: string): string {
  return key.slice(0, key.indexOf('\u0000'));
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
