import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, writeConfig } from '../support/broker.js';
import { KUBECRED_CLI, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

/** Runs the CLI with its stdout going into a pipe that the reader closes at once (`| true`). */
function intoClosedPipe(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [KUBECRED_CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('close', (code) => resolve({ code, stderr }));
  });
}

// New-user finding 8: `kubecred status | head -1` crashed with a stack trace (EPIPE).
describe('the CLI writing into a pipe its reader already closed', () => {
  let home: TempHome;

  beforeAll(async () => {
    assertBuilt();
    home = await makeTempHome();
    await writeConfig(
      home.dir,
      `profiles:\n${Array.from({ length: 40 }, (_, i) => `  - { name: p${i}, provider: static }\n`).join('')}`,
    );
  });
  afterAll(async () => home?.cleanup());

  it('ends quietly, without a stack trace, every time', async () => {
    for (const args of [['status'], ['profile', 'list'], ['--help']]) {
      for (let i = 0; i < 8; i++) {
        const result = await intoClosedPipe(args, brokerEnv(home.dir));
        expect(result.stderr, args.join(' ')).not.toMatch(/EPIPE|\n\s+at /);
      }
    }
  });
});
