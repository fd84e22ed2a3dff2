import { isMap, isNode, isScalar, type Document, type LineCounter, type YAMLMap } from 'yaml';
import type { z } from 'zod';
import { closestName } from '../../shared/closestName.js';
import { configSchema, profileSchema, registrySchema, tokenSchema } from '../../shared/config/schema.js';

/**
 * config.yaml's problems as a person would state them: one line each, at the line of the
 * offending key, "unknown key `provder` (did you mean `provider`?)" rather than a schema
 * library's "Invalid discriminator value".
 */
export function describeConfigIssues(
  issues: readonly z.core.$ZodIssue[],
  doc: Document,
  lines: LineCounter,
  file: string,
): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      const { path, message, key } = restate(issue, doc);
      const line = lineOf(doc, lines, path, key);
      const field = formatPath(path);
      return `${file}${line ? ` line ${line}` : ''}${field ? `, ${field}` : ''}: ${message}`;
    })
    .join('\n');
}

function restate(
  issue: z.core.$ZodIssue,
  doc: Document,
): { path: readonly PropertyKey[]; message: string; key?: string } {
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeys(issue.path);
    const [key] = issue.keys;
    const guess = key === undefined ? undefined : closestName(key, known);
    return {
      path: issue.path,
      key,
      message: `unknown key "${key}"${guess ? ` (did you mean "${guess}"?)` : ''}${
        issue.keys.length > 1
          ? `, and ${issue.keys
              .slice(1)
              .map((k) => `"${k}"`)
              .join(', ')}`
          : ''
      }`,
    };
  }
  if (issue.code === 'invalid_union' && 'discriminator' in issue && issue.discriminator === 'provider') {
    const itemPath = issue.path.slice(0, -1);
    const item = doc.getIn(itemPath as unknown[], true);
    const options = ((issue as { options?: unknown[] }).options ?? []).join(', ');
    const typo = isMap(item)
      ? keysOf(item).find((k) => k !== 'provider' && closestName(k, ['provider']) !== undefined)
      : undefined;
    if (typo)
      return {
        path: itemPath,
        key: typo,
        message: `unknown key "${typo}" (did you mean "provider"?); provider is one of ${options}`,
      };
    const given = isMap(item) ? item.get('provider') : undefined;
    return {
      path: issue.path,
      message:
        given === undefined
          ? `provider is missing: one of ${options}`
          : `provider "${String(given)}" is not one of ${options}`,
    };
  }
  return { path: issue.path, message: issue.message };
}

/** The keys config.yaml allows where the issue is: top level, a profile, a token, a registry. */
function knownKeys(path: readonly PropertyKey[]): string[] {
  const shape = (schema: unknown): string[] =>
    Object.keys((schema as { shape?: object }).shape ?? (schema as { _def?: { shape?: object } })._def?.shape ?? {});
  if (path.length === 0) return shape(configSchema);
  switch (path[0]) {
    case 'profiles':
      return [...new Set(profileSchema.options.flatMap((option) => shape(option)))];
    case 'tokens':
      return shape((tokenSchema as unknown as { _def?: { schema?: unknown } })._def?.schema ?? tokenSchema);
    case 'registries':
      return shape(registrySchema);
    default:
      return [];
  }
}

function keysOf(map: YAMLMap): string[] {
  return map.items.map((pair) => (isScalar(pair.key) ? String(pair.key.value) : String(pair.key)));
}

/** The line of a key of the node at the path, else of the deepest node that exists on it. */
function lineOf(
  doc: Document,
  lines: LineCounter,
  issuePath: readonly PropertyKey[],
  key?: string,
): number | undefined {
  const node = doc.getIn(issuePath as unknown[], true);
  if (key !== undefined && isMap(node)) {
    const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === key);
    const range = isNode(pair?.key) ? pair.key.range : undefined;
    if (range) return lines.linePos(range[0]).line;
  }
  for (let depth = issuePath.length; depth >= 0; depth--) {
    const found = doc.getIn(issuePath.slice(0, depth) as unknown[], true);
    if (isNode(found) && found.range) return lines.linePos(found.range[0]).line;
  }
  return undefined;
}

export function formatPath(issuePath: readonly PropertyKey[]): string {
  return issuePath
    .map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`))
    .join('');
}
