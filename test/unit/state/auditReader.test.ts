import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readAuditTail } from '../../../src/main/state/auditReader.js';

const record = (i: number) => ({
  time: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  profile: `p${i}`,
  caller: { pid: 100 + i, name: 'kubectl', client: 'shim' },
  outcome: 'served' as const,
  source: 'cache' as const,
});

describe('readAuditTail', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'kc-audit-'));
    file = path.join(dir, 'audit.log');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('has no records before the first request', async () => {
    expect(await readAuditTail(file)).toEqual([]);
  });

  it('returns the newest records first, at most the limit', async () => {
    await writeFile(file, Array.from({ length: 10 }, (_, i) => JSON.stringify(record(i))).join('\n') + '\n');
    const records = await readAuditTail(file, { limit: 3 });
    expect(records.map((r) => r.profile)).toEqual(['p9', 'p8', 'p7']);
    expect(records[0]).toEqual(record(9));
  });

  it('skips lines that are not records: garbage, half-written, wrong shape', async () => {
    const lines = [
      JSON.stringify(record(1)),
      'not json',
      '{"time":"x"}',
      JSON.stringify({ ...record(2), outcome: 'maybe' }),
      JSON.stringify(record(3)),
      '{"time":"2026-01-01T00:00:04.000Z","prof',
    ];
    await writeFile(file, lines.join('\n'));
    expect((await readAuditTail(file)).map((r) => r.profile)).toEqual(['p3', 'p1']);
  });

  it('reads only a bounded tail of a large log, dropping the line the bound cuts', async () => {
    const lines = Array.from({ length: 2000 }, (_, i) => JSON.stringify(record(i % 10)));
    await writeFile(file, lines.join('\n') + '\n');
    const lineBytes = lines[0]!.length + 1;
    const records = await readAuditTail(file, { limit: 1000, maxBytes: lineBytes * 10 + 5 });
    expect(records).toHaveLength(10);
    expect(records[0]).toEqual(record(1999 % 10));
  });
});
