import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const SHORT_TOKEN = '3f9c2a7d1b8e4f60a5d2c9e7b1f04a6d';
const PASSWORD = 'Hunter2!Secret';

// B8 of the security review: a failing plugin's stderr reached kubectl, the audit trail and the
// web UI with short secrets intact. The trail now keeps the failure only; the terminal gets a
// redacted quote.
describe('a wrapped plugin that prints secrets on stderr and fails', () => {
  let home: TempHome;
  let broker: TestBroker;
  const { credential } = callersFor(() => home.dir);

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    const plugin = path.join(home.dir, 'leaky-plugin.sh');
    await writeFile(
      plugin,
      `#!/bin/sh\necho "rejected token ${SHORT_TOKEN} for bob, password=${PASSWORD}" >&2\nexit 1\n`,
      { mode: 0o755 },
    );
    await writeConfig(home.dir, `profiles:\n  - { name: leaky, provider: exec, command: ${plugin} }\n`);
    broker = await startTestBroker(home.dir);
  });

  afterAll(async () => {
    await broker?.stop();
    await home?.cleanup();
  });

  it("kubectl's stderr says what failed, with the secrets redacted", async () => {
    const answer = await credential('leaky');
    expect(answer.code).toBe(1);
    expect(answer.stderr).toContain('failed (exit 1): rejected token [redacted] for bob, password=[redacted]');
    expect(answer.stderr).not.toContain(SHORT_TOKEN);
    expect(answer.stderr).not.toContain(PASSWORD);
  });

  it("the audit trail and the broker log keep the failure, and none of the plugin's words", async () => {
    await expect
      .poll(async () => readFile(path.join(home.dir, 'state', 'audit.jsonl'), 'utf8').catch(() => ''), {
        timeout: 3_000,
      })
      .toContain('"outcome":"failed"');
    const audit = await readFile(path.join(home.dir, 'state', 'audit.jsonl'), 'utf8');
    expect(audit).toMatch(/"error":"exec plugin \\".*leaky-plugin.sh\\" of profile \\"leaky\\" failed \(exit 1\)"/);
    expect(audit).not.toContain('rejected');
    for (const text of [audit, broker.output()]) {
      expect(text).not.toContain(SHORT_TOKEN);
      expect(text).not.toContain(PASSWORD);
    }
  });

  it("B9: a profile name with terminal escapes comes back as plain text on the shim's stderr", async () => {
    const answer = await credential('x\u001b]2;pwned\u0007\u001b[2J');
    expect(answer.code).toBe(1);
    expect(answer.stderr).toMatch(/no profile "x" in /);
    expect(answer.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
  });
});
