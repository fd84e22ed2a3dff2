import { mkdtemp, readdir, readFile, rename, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../../src/main/core/auditLog.js';
import { FileAuditLog } from '../../../src/main/state/fileAuditLog.js';

const record = (n: number): AuditRecord => ({
  time: `2026-11-22T00:00:${String(n).padStart(2, '0')}Z`,
  profile: 'p',
  caller: { client: 'shim' },
  outcome: 'served',
  source: 'cache',
});

describe.runIf(process.platform === 'linux')('the audit log on a full disk', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'kc-audit-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('fails the first write of an outage only, then records the gap once the disk has room', async () => {
    const file = path.join(dir, 'audit.log');
    // /dev/full answers every write with ENOSPC, as a full disk does.
    await symlink('/dev/full', file);
    const log = new FileAuditLog(file);
    await expect(log.append(record(1))).rejects.toMatchObject({ code: 'ENOSPC' });
    for (let n = 2; n <= 5; n++) await expect(log.append(record(n))).resolves.toBeUndefined();

    await rm(file);
    await log.append(record(6));
    const lines = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as AuditRecord);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      outcome: 'failed',
      time: record(6).time,
      error: `5 audit record(s) from ${record(1).time} on could not be written (ENOSPC)`,
    });
    expect(lines[1]).toEqual(record(6));
  });

  it('writes nothing extra when there was no outage', async () => {
    const file = path.join(dir, 'audit.log');
    const log = new FileAuditLog(file);
    await log.append(record(1));
    await log.append(record(2));
    expect(
      (await readFile(file, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([record(1), record(2)]);
  });

  // Issue 32: the file stays open between records (one write each, not open, write, close).
  const lines = async (file: string) =>
    (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as AuditRecord);
  const openFiles = async () => (await readdir('/proc/self/fd')).length;

  it('writes records that arrive together in their order, through one open file', async () => {
    const file = path.join(dir, 'audit.log');
    const log = new FileAuditLog(file);
    const before = await openFiles();
    await Promise.all(Array.from({ length: 40 }, (_, n) => log.append(record(n))));
    expect(await openFiles()).toBeLessThanOrEqual(before + 1);
    expect(await lines(file)).toEqual(Array.from({ length: 40 }, (_, n) => record(n)));
    await log.close();
    expect(await openFiles()).toBeLessThanOrEqual(before);
  });

  it('writes to a new file at its path when the trail was moved or deleted meanwhile', async () => {
    const file = path.join(dir, 'audit.log');
    const log = new FileAuditLog(file);
    await log.append(record(1));
    await rename(file, `${file}.old`);
    await log.append(record(2));
    await rm(file);
    await log.append(record(3));
    expect(await lines(`${file}.old`)).toEqual([record(1)]);
    expect(await lines(file)).toEqual([record(3)]);
    await log.close();
  });

  it('counts the new file, not the one moved away, toward its rotation limit', async () => {
    const file = path.join(dir, 'audit.log');
    const size = Buffer.byteLength(`${JSON.stringify(record(1))}\n`);
    const log = new FileAuditLog(file, async () => ({ maxBytes: size * 2, keep: 1 }));
    await log.append(record(1));
    await log.append(record(2));
    await rename(file, `${file}.theirs`);
    await log.append(record(3));
    await log.append(record(4));
    // Two records fit: the fresh file was not rotated because of the old one's size.
    expect(await lines(file)).toEqual([record(3), record(4)]);
    await log.close();
  });

  it('rotates at its limit and goes on in the fresh file', async () => {
    const file = path.join(dir, 'audit.log');
    const size = Buffer.byteLength(`${JSON.stringify(record(1))}\n`);
    const log = new FileAuditLog(file, async () => ({ maxBytes: size * 2, keep: 1 }));
    for (let n = 1; n <= 5; n++) await log.append(record(n));
    expect(await lines(`${file}.1`)).toEqual([record(3), record(4)]);
    expect(await lines(file)).toEqual([record(5)]);
    await log.close();
  });
});
