// The facts a contributor reads in README.md and docs/contributing.md that the code already
// states: the layers (scripts/layers.mjs) and the providers (their facts and descriptors). The
// docs hold them between markers; test/unit/scripts/docFacts.test.ts fails when they drift.
//   npx tsx scripts/docFacts.ts --write    rewrites the blocks from the code
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PROVIDER_CATALOG } from '../src/main/providers/providerCatalog.js';
import { PROVIDER_FACTS, PROVIDER_KINDS } from '../src/shared/config/providerFacts.js';

interface Layer {
  readonly imports?: readonly string[];
  readonly holds: string;
}
interface LayersTable {
  readonly SHARED_LAYERS: Readonly<Record<string, Layer>>;
  readonly MAIN_LAYERS: Readonly<Record<string, Layer>>;
  readonly HOSTS: Readonly<Record<string, Layer>>;
}

const repository = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

async function layersTable(): Promise<LayersTable> {
  // By URL: the table is plain JavaScript, shared with ESLint, and has no types to import.
  return (await import(pathToFileURL(path.join(repository, 'scripts', 'layers.mjs')).href)) as LayersTable;
}

/** Every room of src, bottom first, as `src/<room>/` and what it holds. */
async function rooms(): Promise<Array<{ room: string; holds: string; imports: readonly string[] | undefined }>> {
  const { SHARED_LAYERS, MAIN_LAYERS, HOSTS } = await layersTable();
  return [
    ...Object.entries(SHARED_LAYERS).map(([unit, layer]) => ({
      room: `src/${unit}/`,
      holds: layer.holds,
      imports: layer.imports?.map((name) => `src/${name}`),
    })),
    ...Object.entries(MAIN_LAYERS).map(([folder, layer]) => ({
      room: `src/main/${folder}/`,
      holds: layer.holds,
      imports: layer.imports?.map((name) => `src/main/${name}`),
    })),
    ...Object.entries(HOSTS).map(([folder, layer]) => ({
      room: `src/main/${folder}/`,
      holds: layer.holds,
      imports: undefined,
    })),
  ];
}

/** README's tree: one line per room, the name padded to a column. */
async function roomList(): Promise<string> {
  const all = await rooms();
  const width = Math.max(...all.map(({ room }) => room.length)) + 1;
  return ['```', ...all.map(({ room, holds }) => `${room.padEnd(width)}${holds}`), '```'].join('\n');
}

/** The layers with what each may import besides src/shared. */
async function layerTable(): Promise<string> {
  const rows = (await rooms()).map(
    ({ room, holds, imports }) =>
      `| \`${room}\` | ${holds} | ${imports === undefined ? 'every layer (a host)' : imports.map((name) => `\`${name}\``).join(', ') || 'nothing'} |`,
  );
  return ['| room | holds | may import (besides the shared layers below it) |', '|---|---|---|', ...rows].join('\n');
}

function providerTable(): string {
  const yesNo = (value: boolean) => (value ? 'yes' : 'no');
  const rows = PROVIDER_KINDS.map((kind) => {
    const facts = PROVIDER_FACTS[kind];
    const fields = PROVIDER_CATALOG[kind].secretFields.map((field) => `\`${field}\``).join(', ') || 'none';
    return `| \`${kind}\` | \`src/main/providers/${kind}/${kind}Descriptor.ts\` | ${yesNo(facts.signsIn)} | ${yesNo(facts.renewsSilently)} | ${yesNo(facts.importedFromKubeconfig)} | ${fields} |`;
  });
  return [
    '| provider | descriptor | signs in | renews by itself | from a kubeconfig | secret fields |',
    '|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** Each generated block: the file it stands in, its name between the markers, its text. */
export async function docFacts(): Promise<Array<{ file: string; block: string; text: string }>> {
  return [
    { file: 'README.md', block: 'rooms', text: await roomList() },
    { file: 'docs/contributing.md', block: 'layers', text: await layerTable() },
    { file: 'docs/contributing.md', block: 'providers', text: providerTable() },
  ];
}

const begin = (block: string) => `<!-- generated: ${block} (npx tsx scripts/docFacts.ts --write) -->`;
const END = '<!-- end generated -->';

/** The text between a block's markers in `document`, or undefined when the markers are missing. */
export function blockIn(document: string, block: string): string | undefined {
  const start = document.indexOf(begin(block));
  if (start < 0) return undefined;
  const end = document.indexOf(END, start);
  return end < 0 ? undefined : document.slice(start + begin(block).length, end).trim();
}

function withBlock(document: string, block: string, text: string): string {
  const start = document.indexOf(begin(block));
  const end = document.indexOf(END, start);
  if (start < 0 || end < 0) throw new Error(`no markers for "${block}": add ${begin(block)} ... ${END}`);
  return `${document.slice(0, start + begin(block).length)}\n${text}\n${document.slice(end)}`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (!process.argv.includes('--write')) {
    process.stderr.write('usage: npx tsx scripts/docFacts.ts --write\n');
    process.exit(2);
  }
  for (const { file, block, text } of await docFacts()) {
    const full = path.join(repository, file);
    writeFileSync(full, withBlock(readFileSync(full, 'utf8'), block, text));
  }
}
