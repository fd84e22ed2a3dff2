import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { recentDenials } from '../../../src/main/electron/deniedRequests.js';

describe('recentDenials', () => {
  it("turns the audit trail's denials into notification items, oldest first, and skips junk", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'kc-audit-'));
    try {
      const file = path.join(dir, 'audit.jsonl');
      const line = (time: string, outcome: string, pid: number, name?: string) =>
        JSON.stringify({ time, profile: 'prod', caller: { pid, client: 'shim', ...(name ? { name } : {}) }, outcome });
      await writeFile(
        file,
        [
          line('2026-01-01T00:00:00Z', 'denied', 1, 'k9s'),
          line('2026-01-01T00:01:00Z', 'served', 2),
          'not json',
          line('2026-01-01T00:02:00Z', 'denied', 3),
        ].join('\n') + '\n',
      );
      const denied = await recentDenials(file);
      expect(denied).toEqual([
        { id: '2026-01-01T00:00:00Z 1 prod', profile: 'prod', caller: 'k9s' },
        { id: '2026-01-01T00:02:00Z 3 prod', profile: 'prod' },
      ]);
      expect(await recentDenials(path.join(dir, 'missing.jsonl'))).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
