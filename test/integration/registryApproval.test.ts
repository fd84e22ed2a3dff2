import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { REPO_ROOT, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

/** A web UI call as a program makes it. */
function api(
  url: string,
  host: string,
  bearer: string | undefined,
  body?: unknown,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: body === undefined ? 'GET' : 'POST',
        headers: { host, 'content-type': 'application/json', ...(bearer ? { authorization: bearer } : {}) },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

// B3 of the security review: registry logins were handed out with no approval at all.
describe('a registry whose login needs approval', () => {
  let home: TempHome;
  let broker: TestBroker;
  const { cli } = callersFor(() => home.dir);

  beforeAll(async () => {
    assertBuilt();
    home = await makeTempHome();
    const command = path.join(home.dir, 'password.sh');
    await writeFile(command, '#!/bin/sh\necho guarded-registry-password\n', { mode: 0o755 });
    await writeConfig(
      home.dir,
      `registries:\n  - name: guarded\n    matchImages: [guarded.example]\n    username: robot\n    passwordCommand: { command: ${command} }\n    approval: always\n`,
    );
    broker = await startTestBroker(home.dir);
  });
  afterAll(async () => {
    await broker?.stop();
    await home?.cleanup();
  });

  it('asks before docker gets it; a denial is refused and audited as denied', async () => {
    const helper = path.join(REPO_ROOT, 'bin', 'docker-credential-kubecred');
    const caller = spawn('/bin/sh', ['-c', `echo guarded.example | "${helper}" get; exit $?`], {
      env: brokerEnv(home.dir),
    });
    let stdout = '';
    caller.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const exited = new Promise<number | null>((resolve) => caller.once('close', resolve));
    const link = new URL((await cli(['ui', '--print'])).stdout.trim());
    const session = JSON.parse(
      (await api(`${link.origin}/api/session`, link.host, undefined, { token: link.hash.slice(7) })).body,
    ).session as string;
    let approval: { id: string; profile: string } | undefined;
    await expect
      .poll(
        async () => {
          const state = JSON.parse((await api(`${link.origin}/api/state`, link.host, `Bearer ${session}`)).body) as {
            prompts: Array<{ id: string; kind: string; profile: string }>;
          };
          approval = state.prompts.find((p) => p.kind === 'approval');
          return approval?.profile;
        },
        { timeout: 10_000 },
      )
      .toBe('registry:guarded');
    expect(
      (
        await api(`${link.origin}/api/prompts/${approval!.id}`, link.host, `Bearer ${session}`, {
          kind: 'approval',
          allow: false,
        })
      ).status,
    ).toBe(200);
    expect(await exited).not.toBe(0);
    expect(stdout).not.toContain('guarded-registry-password');
    await expect
      .poll(async () => readFile(path.join(home.dir, 'state', 'audit.jsonl'), 'utf8').catch(() => ''), {
        timeout: 3_000,
      })
      .toContain('"profile":"registry:guarded","outcome":"denied"');
  });
});
