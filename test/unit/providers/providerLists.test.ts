import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROVIDER_CATALOG, secretFieldsOf } from '../../../src/main/providers/providerCatalog.js';
import { importMoveSchema } from '../../../src/shared/api/webUiApi.js';
import { PROVIDER_FACTS, PROVIDER_KINDS } from '../../../src/shared/config/providerFacts.js';
import { configSchema, profileSchema } from '../../../src/shared/config/schema.js';
import {
  formatSecretStoreRef,
  parseSecretStoreRef,
  type SecretStoreRef,
} from '../../../src/shared/config/secretStoreRef.js';
import { OPTIONAL_FIELDS, PROVIDER_FIELDS, SECRET_FIELDS } from '../../../src/renderer/profileFields.js';

// A provider is declared by config.yaml's schema and described once per runtime: its facts
// (src/shared/config/providerFacts.ts) and its descriptor (src/main/providers/<kind>/). Every
// other list is derived or keyed by the same union; these tests fail when one disagrees, or
// when someone writes a new list by hand.

const src = path.resolve(__dirname, '../../../src');
const sorted = (items: Iterable<string>) => [...items].sort();

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return name === 'shim' ? [] : sourceFiles(file);
    return /\.tsx?$/.test(name) ? [file] : [];
  });
}

describe('the provider lists', () => {
  const schemaKinds = profileSchema.options.map((option) => option.shape.provider.value);

  it('the facts, the catalog and every keyed table name exactly the schema’s providers', () => {
    expect(sorted(PROVIDER_KINDS)).toEqual(sorted(schemaKinds));
    for (const table of [PROVIDER_FACTS, PROVIDER_CATALOG, PROVIDER_FIELDS, OPTIONAL_FIELDS, SECRET_FIELDS])
      expect(sorted(Object.keys(table))).toEqual(sorted(schemaKinds));
    for (const [kind, descriptor] of Object.entries(PROVIDER_CATALOG)) expect(descriptor.kind).toBe(kind);
  });

  it('each provider has its folder with its descriptor in it', () => {
    for (const kind of PROVIDER_KINDS)
      expect(existsSync(path.join(src, 'main/providers', kind, `${kind}Descriptor.ts`)), kind).toBe(true);
  });

  it('the window offers only secrets the provider reads', () => {
    for (const kind of PROVIDER_KINDS) {
      const offered = SECRET_FIELDS[kind].map((field) => field.key);
      for (const field of offered) expect(secretFieldsOf({ provider: kind }), `${kind}: ${field}`).toContain(field);
    }
  });

  it('the import wizard’s providers are those whose facts say kubeconfig users become them', () => {
    const imported = PROVIDER_KINDS.filter((kind) => PROVIDER_FACTS[kind].importedFromKubeconfig);
    expect(sorted(importMoveSchema.shape.provider.options)).toEqual(sorted(imported));
  });

  it('no source file spells a list of providers by hand', () => {
    const name = `'(?:${schemaKinds.join('|')})'`;
    const bare = `(?:${schemaKinds.join('|')})`;
    // Two or more names in a row: an array, a union type, a usage line or a prose list.
    const list = new RegExp(`${name}\\s*(?:,|\\|)\\s*${name}|\\b${bare}\\|${bare}\\b|\\b${bare}, ${bare}, ${bare}\\b`);
    const allowed = new Set(['shared/api/webUiApi.ts']); // the import enum, checked above
    const offenders = sourceFiles(src)
      .map((file) => path.relative(src, file).split(path.sep).join('/'))
      .filter((file) => !allowed.has(file) && list.test(readFileSync(path.join(src, file), 'utf8')));
    expect(offenders).toEqual([]);
  });
});

describe('the secret store references', () => {
  const every: SecretStoreRef[] = [{ kind: 'keychain' }, { kind: 'encrypted-file' }, { kind: 'token', token: 'yubi' }];

  it('each kind reads back as written, and config.yaml takes it for a profile', () => {
    for (const ref of every) {
      const text = formatSecretStoreRef(ref);
      expect(parseSecretStoreRef(text)).toEqual(ref);
      const config = configSchema.safeParse({
        tokens: [{ name: 'yubi', module: '/x.so', label: 'y' }],
        profiles: [{ name: 'p', provider: 'static', secretStore: text }],
      });
      expect(config.success, text).toBe(true);
    }
  });

  it('anything else is refused, not sent to the token plugin', () => {
    for (const text of ['tpm', 'token:', 'token:Bad Name', 'Keychain', 'keychain ', 'token:yubi/x'])
      expect(parseSecretStoreRef(text), text).toBeUndefined();
    const config = configSchema.safeParse({ profiles: [{ name: 'p', provider: 'static', secretStore: 'tpm' }] });
    expect(config.success).toBe(false);
  });

  it('the default store is one of the kinds, never a token', () => {
    const options = configSchema.parse({}).secretStore;
    expect(parseSecretStoreRef(options)?.kind).toBe('keychain');
  });

  it('only secretStoreRef.ts spells the token: prefix', () => {
    const offenders = sourceFiles(src)
      .filter((file) => !file.endsWith('secretStoreRef.ts'))
      .filter((file) => /['"`]token:(?:['"`$]|[a-z0-9])/.test(readFileSync(file, 'utf8')))
      .map((file) => path.relative(src, file));
    expect(offenders).toEqual([]);
  });
});
