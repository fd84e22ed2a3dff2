import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { V1_EXEC_INFO, callersFor } from '../support/callers.js';
import { NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

/** POST JSON to the web UI as a program would. */
function post(
  url: string,
  host: string,
  body: unknown,
  authorization?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: { host, 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

// A broker that kubectl started has no window open: an approval must not fail at once (the
// old behaviour, which sent users in a loop), nor hang in silence. The caller's terminal is
// told at once where to approve, and `kubecred ui` brings the window up.
describe('approval on a broker that was started without its web UI', () => {
  let home: TempHome;
  let broker: TestBroker;
  const { cli, credential } = callersFor(() => home.dir);

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    const plugin = `["-c", "echo '{\\"apiVersion\\":\\"client.authentication.k8s.io/v1\\",\\"kind\\":\\"ExecCredential\\",\\"status\\":{\\"token\\":\\"t\\"}}'"]`;
    await writeConfig(
      home.dir,
      `profiles:\n  - { name: guarded, provider: exec, command: /bin/sh, args: ${plugin}, approval: always }\n  - { name: open, provider: exec, command: /bin/sh, args: ${plugin} }\n`,
    );
    broker = await startTestBroker(home.dir);
  });
  afterAll(async () => {
    await broker?.stop();
    await home?.cleanup();
  });

  it('tells the waiting kubectl at once where to approve; kubecred ui opens the window that approves it', async () => {
    // kubectl's place is taken by a shell, so the approving page (opened by this test) is not the caller's.
    const caller = spawn('/bin/sh', ['-c', `"${NATIVE_SHIM}" credential guarded; exit $?`], {
      env: { ...brokerEnv(home.dir), KUBERNETES_EXEC_INFO: V1_EXEC_INFO },
    });
    let stderr = '';
    let stdout = '';
    caller.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    caller.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const exited = new Promise<number | null>((resolve) => caller.once('close', resolve));
    await expect
      .poll(() => stderr, { timeout: 10_000 })
      .toMatch(
        /kubecred: profile "guarded" waits for your approval in the Kubecred window \(if none is open, run: kubecred ui\); it gives up at \d\d:\d\d:\d\d\n/,
      );

    const printed = await cli(['ui', '--print']);
    expect(printed.code, printed.stderr).toBe(0);
    const link = new URL(printed.stdout.trim());
    const session = await post(`${link.origin}/api/session`, link.host, { token: link.hash.slice('#token='.length) });
    expect(session.status).toBe(200);
    const bearer = `Bearer ${JSON.parse(session.body).session}`;
    const state = await new Promise<{ prompts: Array<{ id: string; kind: string; profile?: string }> }>(
      (resolve, reject) => {
        httpRequest(`${link.origin}/api/state`, { headers: { host: link.host, authorization: bearer } }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve(JSON.parse(text)));
        })
          .on('error', reject)
          .end();
      },
    );
    const approval = state.prompts.find((p) => p.kind === 'approval' && p.profile === 'guarded');
    expect(approval).toBeDefined();
    expect(
      (await post(`${link.origin}/api/prompts/${approval!.id}`, link.host, { kind: 'approval', allow: true }, bearer))
        .status,
    ).toBe(200);
    expect(await exited).toBe(0);
    expect(JSON.parse(stdout).status.token).toBe('t');
    await expect
      .poll(
        async () =>
          (await readFile(path.join(home.dir, 'state', 'audit.jsonl'), 'utf8')).includes('"outcome":"served"'),
        { timeout: 3000 },
      )
      .toBe(true);
  });

  it('serves profiles whose policy is never without asking', async () => {
    expect((await credential('open')).code).toBe(0);
  });
});
