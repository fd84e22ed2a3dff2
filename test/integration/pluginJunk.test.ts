import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { seededRandom } from '../support/fuzz.js';
import { assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const PLANTED = 'plugin-junk-secret-5e0a77c1d2';

describe('a wrapped plugin that prints junk, through the real broker', () => {
  let home: TempHome;
  let broker: TestBroker;
  let output: string;
  const callers = callersFor(() => home.dir);

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    output = path.join(home.dir, 'plugin-output');
    const plugin = path.join(home.dir, 'plugin.sh');
    // The plugin prints whatever the test put in its files, on stdout and stderr, and exits as told.
    await writeFile(plugin, `#!/bin/sh\ncat ${output}.err >&2\ncat ${output}\nexit $(cat ${output}.code)\n`, {
      mode: 0o755,
    });
    await writeConfig(
      home.dir,
      `profiles:\n  - name: junk\n    provider: exec\n    command: ${plugin}\n    timeout: 5s\n`,
    );
    broker = await startTestBroker(home.dir);
  });

  afterAll(async () => {
    await broker?.stop();
    await home?.cleanup();
  });

  async function answerTo(stdout: Buffer | string, stderr: Buffer | string = '', code = 0) {
    await writeFile(output, stdout);
    await writeFile(`${output}.err`, stderr);
    await writeFile(`${output}.code`, String(code));
    return callers.credential('junk');
  }

  function expectOneCleanLine(result: { code: number | null; stdout: string; stderr: string }, context: string): void {
    expect(result.code, context).toBe(1);
    expect(result.stdout, context).toBe('');
    // One error line; what the plugin said while it ran may come before it, relayed as notices.
    const lines = result.stderr.trim().split('\n');
    expect(
      lines.filter((line) => !line.startsWith('kubecred: profile "junk", its plugin says: ')),
      `${context}: ${result.stderr}`,
    ).toHaveLength(1);
    expect(result.stderr, context).not.toContain(PLANTED);
    // No terminal control characters reach the user's terminal from a plugin.
    expect(result.stderr.trim(), context).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
  }

  it.each([
    ['random bytes', () => seededRandom().bytes(4096), '', 0],
    [
      '5 MiB of output',
      () =>
        `{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"${PLANTED}${'x'.repeat(5 * 1024 * 1024)}"}}`,
      '',
      0,
    ],
    ['the secret in a non-JSON line', () => `token=${PLANTED}\n`, '', 0],
    [
      'the secret on stderr with terminal escapes',
      () => '',
      `\u001b[31merror\u001b[0m: bad token ${PLANTED}${'A'.repeat(40)}\u0007\r\n`,
      3,
    ],
    ['a NUL-laden stdout', () => Buffer.from([0x7b, 0, 0, 0x7d]), '', 0],
  ])('%s: one clean line, nothing on stdout, the broker still serves', async (name, stdout, stderr, code) => {
    expectOneCleanLine(await answerTo(stdout(), stderr, code), name);
    const good = await answerTo(
      JSON.stringify({
        apiVersion: 'client.authentication.k8s.io/v1',
        kind: 'ExecCredential',
        status: { token: 'good' },
      }),
    );
    expect(good.code, good.stderr).toBe(0);
    expect(JSON.parse(good.stdout).status.token).toBe('good');
    expect((await callers.cli(['logout', 'junk'])).code).toBe(0);
  });

  // New user review 4, N24: a wrapped kubelogin that fails at once printed its error twice, once
  // relayed while it ran ("its plugin says: …") and once quoted in the failure.
  it('a plugin that fails at once: its words come once, in the failure, not relayed as well', async () => {
    const result = await answerTo('', 'Error: unknown command "oidc-login" for "kubectl"\n', 1);
    expect(result.code).toBe(1);
    expect(result.stderr).not.toContain('its plugin says');
    expect(result.stderr.match(/unknown command/g)).toHaveLength(1);
  });

  it('says the output was too large, not that the plugin was killed', async () => {
    const result = await answerTo('y'.repeat(3 * 1024 * 1024));
    expectOneCleanLine(result, 'too large');
    expect(result.stderr).toMatch(/more than 1 MiB/);
  });
});
