import type { RegistrySummary } from '../shared/api/status.js';

/** The registry host a matchImages pattern names ("quay.io/team" is quay.io). */
export function registryHost(pattern: string): string {
  return pattern.split('/')[0] ?? pattern;
}

/** The registry hosts Kubecred serves, split into ones a credHelpers entry can name and wildcard patterns. */
export function registryHosts(registries: readonly RegistrySummary[]): { exact: string[]; patterns: string[] } {
  const hosts = [...new Set(registries.flatMap((r) => r.matchImages.map(registryHost)))];
  return { exact: hosts.filter((h) => !h.includes('*')), patterns: hosts.filter((h) => h.includes('*')) };
}
