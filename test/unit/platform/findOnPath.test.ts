import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOnPath } from '../../../src/main/platform/findOnPath.js';

describe.runIf(process.platform !== 'win32')('findOnPath', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'kc-path-'));
    await mkdir(path.join(dir, 'a'));
    await mkdir(path.join(dir, 'b'));
    await mkdir(path.join(dir, 'a', 'plugin-dir'));
    await writeFile(path.join(dir, 'a', 'plugin'), 'not executable', { mode: 0o644 });
    await writeFile(path.join(dir, 'b', 'plugin'), '#!/bin/sh\n', { mode: 0o755 });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('finds the first executable file, as a shell would, skipping non-executables and folders', () => {
    expect(findOnPath('plugin', { PATH: `${dir}/a:${dir}/b` })).toBe(path.join(dir, 'b', 'plugin'));
    expect(findOnPath('plugin-dir', { PATH: `${dir}/a` })).toBeUndefined();
  });

  it('leaves names with a folder in them, and names found nowhere, to the caller', () => {
    expect(findOnPath('./plugin', { PATH: `${dir}/b` })).toBeUndefined();
    expect(findOnPath('missing', { PATH: `${dir}/b` })).toBeUndefined();
    expect(findOnPath('plugin', {})).toBeUndefined();
  });
});
