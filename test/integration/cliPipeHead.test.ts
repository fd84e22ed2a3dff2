import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, writeConfig } from '../support/broker.js';
import { KUBECRED_CLI, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

/**
 * `kubecred <args> | <reader>` in a real shell: the CLI's stderr is what the user sees. The
 * reader (head -1, true) closes the pipe while the CLI may still be writing.
 */
function piped(args: readonly string[], reader: string, env: Record<string, string>): Promise<{ stderr: string }> {
  const quoted = [process.execPath, KUBECRED_CLI, ...args].map((word) => `'${word}'`).join(' ');
  return new Promise((resolve) => {
    const shell = spawn('/bin/sh', ['-c', `${quoted} | ${reader} >/dev/null`], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    shell.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    shell.once('close', () => resolve({ stderr }));
  });
}

// New-user finding 8: `kubecred status | head -1` failed 3 runs in 4 with an EPIPE stack trace,
// `kubecred doctor | true` every time. The race needs repeats to show.
describe('the CLI piped into a reader that stops early', () => {
  let home: TempHome;

  beforeAll(async () => {
    assertBuilt();
    home = await makeTempHome();
    // Enough rows that status writes after head has gone.
    await writeConfig(
      home.dir,
      `profiles:\n${Array.from({ length: 200 }, (_, i) => `  - { name: profile-with-a-long-name-${i}, provider: static }\n`).join('')}`,
    );
  });
  afterAll(async () => home?.cleanup());

  it.each([
    [['status'], 'head -1', 12],
    [['status'], 'true', 12],
    [['profile', 'list'], 'head -1', 12],
    [['doctor'], 'head -1', 6],
    [['doctor'], 'true', 6],
  ] as const)(
    'kubecred %j | %s ends without a stack trace (%i runs)',
    async (args, reader, runs) => {
      for (let run = 0; run < runs; run++) {
        const { stderr } = await piped(
          args,
          reader,
          brokerEnv(home.dir, { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' }),
        );
        expect(stderr, `run ${run + 1}`).not.toMatch(/EPIPE|Error:|\n\s+at /);
      }
    },
    120_000,
  );
});
