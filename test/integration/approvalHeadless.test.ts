import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { V1_EXEC_INFO, callersFor } from '../support/callers.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
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
// told at once where to approve, and the broker opens that page itself. A page any program
// could open through the socket (`kubecred ui`) may deny it but never allow it (security
// review 3, C4).
describe('approval on a broker that was started without its web UI', () => {
  let home: TempHome;
  let broker: TestBroker;
  let browserStandIn: RecordingBrowser;
  const { cli, credential } = callersFor(() => home.dir);
  const withoutBrowser = callersFor(
    () => home.dir,
    () => ({ DISPLAY: '', WAYLAND_DISPLAY: '', KUBECRED_BROWSER: '' }),
  );

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    const plugin = `["-c", "echo '{\\"apiVersion\\":\\"client.authentication.k8s.io/v1\\",\\"kind\\":\\"ExecCredential\\",\\"status\\":{\\"token\\":\\"t\\"}}'"]`;
    await writeConfig(
      home.dir,
      `profiles:\n  - { name: guarded, provider: exec, command: /bin/sh, args: ${plugin}, approval: always }\n  - { name: open, provider: exec, command: /bin/sh, args: ${plugin} }\n`,
    );
    browserStandIn = await recordingBrowser(home.dir);
    broker = await startTestBroker(home.dir, { KUBECRED_BROWSER: browserStandIn.command });
  });
  afterAll(async () => {
    await broker?.stop();
    await home?.cleanup();
  });

  it('tells the waiting kubectl at once where to approve, opens that page itself, and only that page allows', async () => {
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
        /kubecred: profile "guarded" waits for your approval in the Kubecred window, or the page Kubecred opened in your browser; it gives up at \d\d:\d\d:\d\d\n/,
      );
    const sessionOf = async (link: URL) => {
      const session = await post(`${link.origin}/api/session`, link.host, { token: link.hash.slice('#token='.length) });
      expect(session.status).toBe(200);
      return `Bearer ${JSON.parse(session.body).session}`;
    };
    const printed = await cli(['ui', '--print']);
    expect(printed.code, printed.stderr).toBe(0);
    const socketLink = new URL(printed.stdout.trim());
    const socketBearer = await sessionOf(socketLink);
    const link = new URL(await browserStandIn.target(0, 10_000));
    const bearer = await sessionOf(link);
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
    const fromSocketPage = await post(
      `${link.origin}/api/prompts/${approval!.id}`,
      link.host,
      { kind: 'approval', allow: true },
      socketBearer,
    );
    expect(fromSocketPage.status).toBe(403);
    expect(fromSocketPage.body).toContain('can deny an approval but not allow it');
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

  it('opens a page that can allow even while a page opened through the socket is open and following', async () => {
    const printed = new URL((await cli(['ui', '--print'])).stdout.trim());
    const traded = await post(`${printed.origin}/api/session`, printed.host, {
      token: printed.hash.slice('#token='.length),
    });
    const bearer = `Bearer ${JSON.parse(traded.body).session}`;
    // The socket page follows the stream, as an open tab does.
    const following = httpRequest(`${printed.origin}/api/events`, {
      headers: { host: printed.host, authorization: bearer },
    });
    following.on('error', () => undefined);
    following.end();
    await new Promise((resolve) => following.once('response', resolve));
    const openedBefore = (await browserStandIn.opened()).length;
    const caller = spawn('/bin/sh', ['-c', `"${NATIVE_SHIM}" credential guarded; exit $?`], {
      env: { ...brokerEnv(home.dir), KUBERNETES_EXEC_INFO: V1_EXEC_INFO },
    });
    try {
      const link = new URL(await browserStandIn.target(openedBefore, 10_000));
      expect(link.hash).toMatch(/^#token=/);
    } finally {
      caller.kill();
      following.destroy();
    }
  });

  it('kubecred ui where no browser can open: the link alone on stdout, and on stderr why and what to do with it', async () => {
    const printed = await withoutBrowser.cli(['ui']);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]+\n$/);
    expect(printed.stderr).toBe(
      'kubecred: could not open a browser here; open this link in a browser on this machine (it works once), or set KUBECRED_BROWSER to a browser program:\n',
    );
    // --print is for scripts: the link, and nothing said.
    expect((await withoutBrowser.cli(['ui', '--print'])).stderr).toBe('');
  });

  it('serves profiles whose policy is never without asking', async () => {
    expect((await credential('open')).code).toBe(0);
  });
});
