import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { blockIn, docFacts } from '../../../scripts/docFacts.js';

const repository = path.resolve(import.meta.dirname, '..', '..', '..');

// The layers and the providers are facts of the code; the docs show them as generated blocks.
// A change to scripts/layers.mjs or a provider fails here until `npx tsx scripts/docFacts.ts
// --write` brings the docs along.
describe('the facts the docs repeat from the code', () => {
  it.each(['README.md:rooms', 'docs/contributing.md:layers', 'docs/contributing.md:providers'])(
    '%s is what the code says',
    async (where) => {
      const [file, block] = where.split(':') as [string, string];
      const expected = (await docFacts()).find((fact) => fact.file === file && fact.block === block);
      expect(expected, 'the generator still makes this block').toBeDefined();
      const document = readFileSync(path.join(repository, file), 'utf8');
      expect(blockIn(document, block), `${file}: run npx tsx scripts/docFacts.ts --write`).toBe(expected!.text);
    },
  );

  it('names every room of the layer table and every provider', async () => {
    const facts = await docFacts();
    const layers = facts.find((fact) => fact.block === 'layers')!.text;
    for (const room of ['src/shared/api/', 'src/main/core/', 'src/main/hosts/', 'src/main/electron/'])
      expect(layers).toContain(`\`${room}\``);
    const providers = facts.find((fact) => fact.block === 'providers')!.text;
    for (const kind of ['static', 'exec', 'oidc', 'keystone', 'eks']) expect(providers).toContain(`| \`${kind}\` |`);
  });
});
