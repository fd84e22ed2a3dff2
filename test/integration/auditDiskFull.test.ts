import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const TOKEN = 'audit-disk-full-token-2b8e';

describe.runIf(process.platform === 'linux')('the disk full under the audit log', () => {
  let home: TempHome;
  let broker: TestBroker;
  const callers = callersFor(() => home.dir);

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    await writeFile(
      path.join(home.dir, 'plugin.sh'),
      `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"${TOKEN}"}}'\n`,
      { mode: 0o755 },
    );
    await writeConfig(
      home.dir,
      `profiles:\n  - name: wrapped\n    provider: exec\n    command: ${home.dir}/plugin.sh\n`,
    );
    await mkdir(path.join(home.dir, 'state'), { recursive: true, mode: 0o700 });
    // Every write to /dev/full fails with ENOSPC, exactly as on a full disk.
    await symlink('/dev/full', path.join(home.dir, 'state', 'audit.jsonl'));
    broker = await startTestBroker(home.dir);
  });

  afterAll(async () => {
    await broker?.stop();
    await home?.cleanup();
  });

  it('keeps serving, warns once, and records the gap when the disk has room again', async () => {
    for (let i = 0; i < 10; i++) {
      const result = await callers.credential('wrapped');
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout).status.token).toBe(TOKEN);
    }
    await expect.poll(() => broker.output().match(/audit log write failed/g)?.length ?? 0).toBe(1);
    expect(broker.output()).toContain('ENOSPC');

    await rm(path.join(home.dir, 'state', 'audit.jsonl'));
    expect((await callers.credential('wrapped')).code).toBe(0);
    // Records are written after each answer is sent, so the last calls of the outage may land
    // on either side of the disk coming back: every one of the 11 is either counted lost or written.
    const records = async () =>
      (await readFile(path.join(home.dir, 'state', 'audit.jsonl'), 'utf8').catch(() => ''))
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { outcome: string; error?: string; profile: string });
    const accounted = async () => {
      const all = await records();
      const lost = Number(/^(\d+) audit record\(s\)/.exec(all[0]?.error ?? '')?.[1] ?? 0);
      return lost + all.filter((r) => r.outcome === 'served' && r.profile === 'wrapped').length;
    };
    await expect.poll(accounted).toBe(11);
    const [gap, ...rest] = await records();
    expect(gap).toMatchObject({ outcome: 'failed', profile: '-' });
    expect(gap!.error).toMatch(/^\d+ audit record\(s\) from .* on could not be written \(ENOSPC\)$/);
    expect(rest.every((r) => r.outcome === 'served' && r.profile === 'wrapped')).toBe(true);
    expect(broker.output().match(/audit log write failed/g)).toHaveLength(1);
  });
});
