import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  latestImportRecord,
  listBackups,
  pruneBackups,
  writeImportRecord,
  type ImportRecord,
} from '../../../src/main/kubeconfig/importRecord.js';

const record = (profile: string): ImportRecord => ({
  version: 1,
  at: '2026-11-24T10:00:00.000Z',
  files: [],
  profiles: [profile],
  secrets: [],
  caFiles: [],
});

describe('import records', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'kc-records-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('keeps two imports of the same millisecond apart, the later one found as the latest', async () => {
    await writeImportRecord(dir, record('first'));
    await writeImportRecord(dir, record('second'));
    expect((await latestImportRecord(dir))?.record.profiles).toEqual(['second']);
    expect(await listBackups(dir)).toEqual([]);
  });

  it('says a damaged record is damaged instead of undoing half', async () => {
    await writeFile(path.join(dir, 'import-2026-11-24T100000.000Z-001.json'), '{"version":1,');
    await expect(latestImportRecord(dir)).rejects.toThrow(/is damaged .*restore by hand from the backups/);
  });

  it('prunes backups and records alike, and reports only the backups', async () => {
    await writeImportRecord(dir, record('p'));
    await writeFile(path.join(dir, 'config.1a2b3c4d.2026-11-24T100000Z'), 'users: []\n');
    expect(await pruneBackups(dir)).toEqual([path.join(dir, 'config.1a2b3c4d.2026-11-24T100000Z')]);
    expect(await readdir(dir)).toEqual([]);
    expect(await latestImportRecord(dir)).toBeUndefined();
  });
});
