import type { z } from 'zod';
import { profileSchema } from '../../shared/config/schema.js';
import type { ProviderKind } from '../../shared/config/providerFacts.js';

/** How a field is given on the command line (profileFlags.ts reads it back the same way). */
export interface ProviderField {
  readonly key: string;
  readonly flag: string;
  readonly kind: 'text' | 'list' | 'number' | 'env' | 'file-only';
  readonly required: boolean;
  readonly choices?: readonly string[];
}

// Every profile has these; they are listed once, not per provider.
const COMMON_FIELDS = ['description', 'approval', 'proxyUrl'];
const COMMON = new Set(['name', 'provider', ...COMMON_FIELDS]);

/** The schema of one field of a provider's profile: what a prompt checks an answer against. */
export function fieldSchema(provider: ProviderKind, key: string): z.ZodType | undefined {
  return (providerShape(provider) as Record<string, z.ZodType | undefined>)[key];
}

/** A provider's own fields, read from config.yaml's schema so help and prompts cannot drift from it. */
export function providerFields(provider: ProviderKind): ProviderField[] {
  return Object.entries(providerShape(provider) as Record<string, z.ZodType>)
    .filter(([key]) => !COMMON.has(key))
    .map(([key, schema]) => describeField(key, schema));
}

export function commonFields(): ProviderField[] {
  const shape = providerShape('static') as Record<string, z.ZodType>;
  return COMMON_FIELDS.map((key) => describeField(key, shape[key]!));
}

function providerShape(provider: ProviderKind): object {
  const option = profileSchema.options.find((candidate) => candidate.shape.provider.value === provider);
  return option?.shape ?? {};
}

function describeField(key: string, schema: z.ZodType): ProviderField {
  const required = !schema.safeParse(undefined).success;
  const kebab = key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  const choices = enumValues(schema);
  if (key === 'env') return { key, flag: 'env', kind: 'env', required };
  if (schema.safeParse(['x']).success && !schema.safeParse('x').success)
    return { key, flag: kebab.replace(/s$/, ''), kind: 'list', required };
  if (baseType(schema) === 'number' || (schema.safeParse(1).success && !schema.safeParse('1').success))
    return { key, flag: kebab, kind: 'number', required };
  // A map or a nested object: config.yaml only.
  if (!choices && baseType(schema) !== 'string' && !isTextLike(schema))
    return { key, flag: kebab, kind: 'file-only', required };
  return { key, flag: kebab, kind: 'text', required, ...(choices ? { choices } : {}) };
}

/** Takes some text: a URL, a duration, a path, a region, a secret store... (a map or an object takes none). */
function isTextLike(schema: z.ZodType): boolean {
  return ['https://x.example', 'a', '1s', 'us-east-1', '/x', 'keychain'].some(
    (sample) => schema.safeParse(sample).success,
  );
}

type Def = { type?: string; entries?: Record<string, string>; innerType?: unknown };

/** The schema's definition under optional/default wrappers. */
function innerDef(schema: z.ZodType): Def | undefined {
  let def = (schema as unknown as { def?: Def }).def;
  while (def?.innerType) def = (def.innerType as { def?: Def }).def;
  return def;
}

/** string, number, enum, object...: what a pattern or a range does not change (an ARN is text). */
function baseType(schema: z.ZodType): string | undefined {
  return innerDef(schema)?.type;
}

function enumValues(schema: z.ZodType): readonly string[] | undefined {
  const def = innerDef(schema);
  return def?.type === 'enum' && def.entries ? Object.values(def.entries) : undefined;
}

/** `--client-id <value>`, `[--scope <value> ...]`, `[--flow auto|browser|device]`. */
export function flagUsage(field: ProviderField): string {
  const value = field.choices
    ? field.choices.join('|')
    : field.kind === 'env'
      ? 'NAME=value'
      : field.kind === 'number'
        ? '<number>'
        : '<value>';
  const text = `--${field.flag} ${value}${field.kind === 'list' || field.kind === 'env' ? ' ...' : ''}`;
  return field.required ? text : `[${text}]`;
}
