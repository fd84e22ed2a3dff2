import type * as FsPromises from 'node:fs/promises';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

/** Holds the next read of config.yaml until released: the slow disk under a loaded machine. */
const slowRead = vi.hoisted(() => ({ hold: undefined as Promise<void> | undefined }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof FsPromises>();
  const readFile = async (...args: Parameters<typeof fs.readFile>) => {
    const held = slowRead.hold;
    slowRead.hold = undefined;
    const text = await fs.readFile(...args);
    await held;
    return text;
  };
  return { ...fs, default: { ...fs, readFile }, readFile };
});

const { ConfigSource } = await import('../../../src/main/config/configSource.js');

const profiles = (...names: string[]) =>
  `profiles:\n${names.map((name) => `  - { name: ${name}, provider: static }\n`).join('')}`;

// CI saw an import add two profiles and the broker then serve the first alone: a read that
// started before the second write finished after the read that saw it.
describe('config.yaml read while it is being rewritten', () => {
  let dir: string | undefined;
  afterEach(() => dir && rm(dir, { recursive: true, force: true }));

  it('never leaves an older text in force once the writes are done', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'kc-config-order-'));
    const file = path.join(dir, 'config.yaml');
    await writeFile(file, profiles('first'));
    const source = new ConfigSource(file);

    let release!: () => void;
    slowRead.hold = new Promise((resolve) => (release = resolve));
    const before = source.current();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await writeFile(file, profiles('first', 'second'));
    const after = source.current();
    // The later read is done before the earlier one, held until now, comes back.
    await Promise.race([after, new Promise((resolve) => setTimeout(resolve, 200))]);
    release();
    await Promise.all([before, after]);

    const names = (await source.current()).config.profiles.map((p) => p.name);
    expect(names).toEqual(['first', 'second']);
    expect((await after).config.profiles.map((p) => p.name)).toEqual(['first', 'second']);
  });
});
