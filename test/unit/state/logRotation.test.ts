import { closeSync, openSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { daemonLogWriter } from '../../../src/main/state/daemonLogWriter.js';
import { FileAuditLog } from '../../../src/main/state/fileAuditLog.js';
import { makeTempHome, type TempHome } from '../../support/tempHome.js';

const LIMITS = { maxBytes: 4096, keep: 2 };

/** The files of a rotated log: the log, then .1 (the newest old one) and on. */
async function rotated(dir: string, name: string): Promise<string[]> {
  return (await readdir(dir)).filter((file) => file.startsWith(name)).sort();
}

async function sizes(dir: string, files: string[]): Promise<number[]> {
  return Promise.all(files.map(async (file) => (await stat(path.join(dir, file))).size));
}

// C5 of the third security review: daemon.log and audit.jsonl had no bound, so anyone who
// could make the broker write could fill the disk. Each is rotated at logs.maxBytes, keeping logs.keep.
describe('log rotation', () => {
  let home: TempHome;
  beforeEach(async () => (home = await makeTempHome()));
  afterEach(() => home.cleanup());

  it('daemon.log, held open for appending as the broker stderr, is rotated in place and keeps 2 old files', async () => {
    const file = path.join(home.dir, 'daemon.log');
    const fd = openSync(file, 'a', 0o600);
    try {
      const write = daemonLogWriter(fd, file, LIMITS);
      for (let i = 0; i < 500; i++) write(`${JSON.stringify({ n: i, pad: 'x'.repeat(80) })}\n`);
    } finally {
      closeSync(fd);
    }
    const files = await rotated(home.dir, 'daemon.log');
    expect(files).toEqual(['daemon.log', 'daemon.log.1', 'daemon.log.2']);
    for (const size of await sizes(home.dir, files)) expect(size).toBeLessThanOrEqual(LIMITS.maxBytes);
    // The newest line is in daemon.log itself: the descriptor still writes there after rotating.
    expect(await readFile(file, 'utf8')).toContain('"n":499');
    expect(await readFile(`${file}.1`, 'utf8')).not.toContain('"n":499');
  });

  it('another stderr (a terminal, a pipe) is written as it is', async () => {
    const file = path.join(home.dir, 'daemon.log');
    const elsewhere = path.join(home.dir, 'other.log');
    const fd = openSync(elsewhere, 'a', 0o600);
    try {
      const write = daemonLogWriter(fd, file, LIMITS);
      for (let i = 0; i < 100; i++) write(`${'y'.repeat(99)}\n`);
    } finally {
      closeSync(fd);
    }
    expect((await stat(elsewhere)).size).toBe(10_000);
  });

  it('audit.jsonl is rotated at maxBytes and keeps 2 old files', async () => {
    const file = path.join(home.dir, 'audit.jsonl');
    const audit = new FileAuditLog(file, async () => LIMITS);
    for (let i = 0; i < 200; i++)
      await audit.append({
        time: new Date(i).toISOString(),
        profile: `p${i}`,
        caller: { client: 'test' },
        outcome: 'served',
      });
    const files = await rotated(home.dir, 'audit.jsonl');
    expect(files).toEqual(['audit.jsonl', 'audit.jsonl.1', 'audit.jsonl.2']);
    for (const size of await sizes(home.dir, files)) expect(size).toBeLessThanOrEqual(LIMITS.maxBytes);
    const newest = (await readFile(file, 'utf8')).trim().split('\n').pop()!;
    expect(JSON.parse(newest)).toMatchObject({ profile: 'p199' });
    // The trail stays open between records; Windows removes no folder that holds an open file.
    await audit.close();
  });
});
