import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { failuresBeforeStart } from '../../../src/main/state/failuresBeforeStart.js';

const line = (profile: string, outcome: string, client = 'shim', error?: string) =>
  JSON.stringify({
    time: '2026-11-26T10:00:00.000Z',
    profile,
    caller: { pid: 1, name: 'kubectl', client },
    outcome,
    ...(error ? { error } : {}),
  });

describe('failuresBeforeStart (issue 26, N4: states that lie after a restart)', () => {
  let dir: string | undefined;
  afterEach(async () => dir && rm(dir, { recursive: true, force: true }));

  it("keeps each profile's last kubectl outcome: a failure is carried over, a later success clears it", async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'kc-audit-'));
    const file = path.join(dir, 'audit.jsonl');
    await writeFile(
      file,
      [
        line('gke', 'served'),
        line('gke', 'failed', 'shim', 'exec plugin "gke-gcloud-auth-plugin" of profile "gke" failed (exit 1)'),
        line('fixed', 'failed', 'node', 'it broke'),
        line('fixed', 'served'),
        line('proxied', 'failed', 'kubecred-proxy', 'the cluster answered 403'),
        line('guarded', 'failed', 'shim', 'boom'),
        line('guarded', 'denied'),
        'not json at all',
        '',
      ].join('\n'),
    );
    const failed = await failuresBeforeStart(file, {
      wrapsPlugin: (profile) => profile === 'gke',
      now: Date.parse('2026-12-02T12:00:00.000Z'),
    });
    expect([...failed.keys()].sort()).toEqual(['gke', 'guarded']);
    expect(failed.get('gke')).toMatch(
      /^exec plugin "gke-gcloud-auth-plugin" of profile "gke" failed \(exit 1\) \(at Nov 2[56], \d\d:\d\d, before the broker restarted; run kubectl again for the plugin's own words\)$/,
    );
  });

  it('a profile removed since its failure (N7): a new profile of the same name starts clean', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'kc-audit-'));
    const file = path.join(dir, 'audit.jsonl');
    const removal = JSON.stringify({
      time: '2026-11-26T10:01:00.000Z',
      profile: 'gke',
      caller: { pid: 7, name: 'node', client: 'cli-terminal' },
      outcome: 'served',
      removed: true,
    });
    await writeFile(
      file,
      [line('gke', 'failed', 'shim', 'old failure'), removal, line('eks', 'failed', 'shim', 'still failing')].join(
        '\n',
      ),
    );
    const recall = { wrapsPlugin: () => true, now: Date.parse('2026-12-02T12:00:00.000Z') };
    const failed = await failuresBeforeStart(file, recall);
    expect([...failed.keys()]).toEqual(['eks']);
    // A failure after the removal is the new profile's own.
    await writeFile(file, [removal, line('gke', 'failed', 'shim', 'new failure')].join('\n'));
    expect((await failuresBeforeStart(file, recall)).get('gke')).toMatch(/^new failure/);
  });

  // New-user finding N17: a static profile has no plugin, and a person reads local time, not ISO.
  it("tells only a wrapped plugin's profile to run kubectl again, and says when in local time", async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'kc-audit-'));
    const file = path.join(dir, 'audit.jsonl');
    await writeFile(file, line('demo', 'failed', 'shim', 'profile "demo" has no token'));
    const failed = await failuresBeforeStart(file, {
      wrapsPlugin: () => false,
      now: Date.parse('2026-12-02T12:00:00.000Z'),
    });
    expect(failed.get('demo')).toMatch(
      /^profile "demo" has no token \(at Nov 2[56], \d\d:\d\d, before the broker restarted\)$/,
    );
    expect(failed.get('demo')).not.toContain('2026-11-26T');
  });

  it('no audit log yet: nothing failed', async () => {
    expect((await failuresBeforeStart('/nonexistent/audit.jsonl', { wrapsPlugin: () => true, now: 0 })).size).toBe(0);
  });
});
