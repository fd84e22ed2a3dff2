import { spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { GUARD_LIFT_RULE } from '../../src/main/broker/guardLiftQuestion.js';
import { freePort } from '../../src/main/platform/freePort.js';
import { httpTransport, type HttpTransport } from '../../src/renderer/api/httpTransport.js';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { KUBECRED_CLI, assertBuilt } from '../support/repo.js';
import { inTerminal, withoutTerminal } from '../support/terminal.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

class MemoryStorage {
  private readonly items = new Map<string, string>();
  getItem = (key: string) => this.items.get(key) ?? null;
  setItem = (key: string, value: string) => void this.items.set(key, value);
  removeItem = (key: string) => void this.items.delete(key);
}

interface AuditLine {
  readonly profile: string;
  readonly outcome: string;
  readonly caller: { pid?: number; name?: string; path?: string; client: string };
  readonly guard?: { decision: string; until?: string; rules?: number };
  readonly error?: string;
}

/** A program of the user with the client secret and no terminal at all (setsid), as security review 4 ran it. */
function socketProgram(
  home: string,
  body: unknown,
): { pid: number; answer: Promise<{ status: number; body: string }> } {
  const script = [
    `curl -s -w '\\n%{http_code}' --unix-socket '${home}/run/broker.sock'`,
    `-H "Authorization: Bearer $(cat '${home}/run/client-secret')"`,
    `-H 'Accept: application/json' -H 'Content-Type: application/json' -X POST http://x/v1/profiles/prod/guard -d '${JSON.stringify(body)}'`,
  ].join(' ');
  // exec: the process at the socket is curl itself, with the pid the test knows.
  const child = spawn('setsid', ['sh', '-c', `exec ${script}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const answer = new Promise<{ status: number; body: string }>((resolve) =>
    child.once('close', () => {
      const lines = out.trimEnd().split('\n');
      resolve({ status: Number(lines.pop()), body: lines.join('\n') });
    }),
  );
  return { pid: child.pid!, answer };
}

// Issue 41 item 2, security review 4 D5: lifting or removing a guard, or changing its rules, is
// the person's act, as an approval's Allow is; every change is in audit.jsonl naming the program
// the kernel named. Judged from audit.jsonl and config.yaml, not only from the answers.
describe('a lift is the person’s act', () => {
  let home: TempHome;
  let broker: TestBroker;
  let browser: RecordingBrowser;
  const { cli } = callersFor(() => home.dir);
  const audit = async (): Promise<AuditLine[]> =>
    (await readFile(path.join(home.dir, 'state', 'audit.jsonl'), 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as AuditLine)
      .filter((record) => record.guard && !record.guard.decision.match(/^(allowed|refused|unlocked)$/));
  const configGuard = async () =>
    (parse(await readFile(path.join(home.dir, 'config.yaml'), 'utf8')) as { profiles: { guard?: unknown }[] })
      .profiles[0]!.guard;
  const guardHolds = async () => (await cli(['guard', 'prod'])).stdout.startsWith('guard of prod: on');
  /** The person's page from the first question: its session outlives the one-time link. */
  let personPage: HttpTransport | undefined;

  /** A session of the page the broker opened (the n-th the browser got): the person's page. */
  const brokerPage = async (index: number): Promise<HttpTransport> => {
    const link = new URL(await browser.target(index, 15_000));
    const page = httpTransport(new MemoryStorage(), link.origin);
    await page.openSession(new URLSearchParams(link.hash.slice(1)).get('token')!);
    return page;
  };
  /** The lift question on the broker's page, once it shows. */
  const liftQuestion = async (page: HttpTransport) => {
    let found: { id: string; caller: { pid?: number; name?: string }; guard?: { action: string } } | undefined;
    await expect
      .poll(
        async () => {
          const prompts = (await page.state()).prompts as unknown as {
            id: string;
            kind: string;
            caller: { pid?: number; name?: string };
            guard?: { rule: string; action: string };
          }[];
          found = prompts.find((p) => p.kind === 'approval' && p.guard?.rule === GUARD_LIFT_RULE);
          return found !== undefined;
        },
        { timeout: 10_000 },
      )
      .toBe(true);
    return found!;
  };

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    await writeConfig(
      home.dir,
      `profiles:\n  - name: prod\n    provider: static\n    proxy: { port: ${await freePort()}, server: "https://127.0.0.1:9" }\n    guard: read-only\n`,
    );
    browser = await recordingBrowser(home.dir);
    broker = await startTestBroker(home.dir, { KUBECRED_BROWSER: browser.command });
  });
  afterAll(async () => {
    await broker?.stop();
    await home?.cleanup();
  });

  it('a program with the client secret and no terminal does not lift silently: the person is asked, and No holds', async () => {
    const attack = socketProgram(home.dir, { off: true, forSeconds: 43_200 });
    const page = await brokerPage(0);
    personPage = page;
    const question = await liftQuestion(page);
    expect(question.caller).toMatchObject({ pid: attack.pid, name: 'curl' });
    expect(question.guard?.action).toBe('lift the guard for 12 h');
    await page.answer(question.id, { kind: 'approval', allow: false });
    const answer = await attack.answer;
    expect(answer.status, answer.body).toBe(403);
    expect(JSON.parse(answer.body).error.message).toBe(
      `lifting the guard of "prod" for curl (pid ${attack.pid}) was denied; the guard holds`,
    );
    expect(await guardHolds()).toBe(true);
    expect(await audit()).toEqual([
      expect.objectContaining({
        profile: 'prod',
        outcome: 'denied',
        caller: { pid: attack.pid, name: 'curl', path: realpathSync('/usr/bin/curl'), client: 'socket' },
        guard: { decision: 'lift-refused' },
      }),
    ]);
  });

  it('the same program lifts only once the person allows it, and the trail names it, not "kubecred"', async () => {
    const before = (await browser.opened()).length;
    const attack = socketProgram(home.dir, { off: true, forSeconds: 600 });
    const page = await brokerPage(before);
    await page.answer((await liftQuestion(page)).id, { kind: 'approval', allow: true });
    expect((await attack.answer).status).toBe(200);
    const lifted = (await audit()).at(-1)!;
    expect(lifted).toMatchObject({
      outcome: 'served',
      caller: { pid: attack.pid, name: 'curl', client: 'socket' },
      guard: { decision: 'lifted', until: expect.any(String) },
    });
    expect(JSON.stringify(lifted)).not.toContain('"client":"kubecred"');
    // Putting it back needs nobody's yes.
    const back = socketProgram(home.dir, { off: false });
    expect((await back.answer).status).toBe(200);
    expect((await audit()).at(-1)).toMatchObject({
      caller: { pid: back.pid, name: 'curl' },
      guard: { decision: 'back' },
    });
  });

  it('a web UI session minted over the socket gets 403 for a removal or a lift; config.yaml and the trail keep the guard', async () => {
    const printed = await cli(['ui', '--print']);
    expect(printed.code, printed.stderr).toBe(0);
    const link = new URL(printed.stdout.trim());
    const socketPage = httpTransport(new MemoryStorage(), link.origin);
    await socketPage.openSession(new URLSearchParams(link.hash.slice(1)).get('token')!);
    const trail = await audit();
    await expect(socketPage.setGuard('prod', { rules: null })).rejects.toMatchObject({ code: 'denied' });
    await expect(socketPage.setGuard('prod', { rules: [{ action: 'confirm', verbs: ['get'] }] })).rejects.toMatchObject(
      { code: 'denied' },
    );
    await expect(socketPage.guard('prod', { off: true, forSeconds: 43_200 })).rejects.toMatchObject({
      code: 'denied',
      message: expect.stringContaining('cannot lift the guard of prod'),
    });
    expect(await configGuard()).toBe('read-only');
    expect(await guardHolds()).toBe(true);
    // Each refused attempt is in the trail, naming the program that asked for the page's link.
    const page = { client: 'web-ui', name: expect.stringMatching(/^a Kubecred page \(link of .+ \(pid \d+\)\)$/) };
    expect(await audit()).toEqual([
      ...trail,
      ...['removal-refused', 'change-refused', 'lift-refused'].map((decision) =>
        expect.objectContaining({ outcome: 'denied', profile: 'prod', caller: page, guard: { decision } }),
      ),
    ]);
  });

  it('kubecred guard prod off --for 15m in a real terminal lifts at once, audited with the CLI the kernel named', async () => {
    const before = (await browser.opened()).length;
    const session = inTerminal(
      [process.execPath, KUBECRED_CLI, 'guard', 'prod', 'off', '--for', '15m'],
      brokerEnv(home.dir),
    );
    await session.waitFor(/guard of prod: lifted until/, 20_000);
    expect((await session.exited).code).toBe(0);
    expect((await browser.opened()).length).toBe(before);
    expect((await audit()).at(-1)).toMatchObject({
      outcome: 'served',
      caller: { name: 'node', path: realpathSync(process.execPath), client: 'cli-terminal' },
      guard: { decision: 'lifted' },
    });
    expect((await cli(['guard', 'prod', 'on'])).code).toBe(0);
  });

  it('a program in the foreground of the terminal whose stdin is a pipe (an install script) is asked too', async () => {
    const before = (await browser.opened()).length;
    const session = inTerminal(
      ['sh', '-c', `exec '${process.execPath}' '${KUBECRED_CLI}' guard prod off --for 15m </dev/null`],
      brokerEnv(home.dir),
    );
    await session.waitFor(/waits for your approval in the Kubecred window/, 20_000);
    const page = await brokerPage(before);
    await page.answer((await liftQuestion(page)).id, { kind: 'approval', allow: false });
    expect((await session.exited).code).not.toBe(0);
    expect(await guardHolds()).toBe(true);
    expect((await audit()).at(-1)).toMatchObject({ caller: { client: 'socket' }, guard: { decision: 'lift-refused' } });
  });

  it('the CLI with no terminal is asked in the window, says so on stderr, and fails when the person says no', async () => {
    const before = (await browser.opened()).length;
    const session = withoutTerminal(
      [process.execPath, KUBECRED_CLI, 'guard', 'prod', 'off', '--for', '15m'],
      brokerEnv(home.dir),
    );
    await session.waitFor(/kubecred: profile "prod" waits for your approval in the Kubecred window/, 20_000);
    const page = await brokerPage(before);
    await page.answer((await liftQuestion(page)).id, { kind: 'approval', allow: false });
    const exited = await session.exited;
    expect(exited.code).not.toBe(0);
    expect(session.screen()).toContain('was denied; the guard holds');
    expect(await guardHolds()).toBe(true);
    expect((await audit()).at(-1)).toMatchObject({
      caller: { name: 'node', client: 'socket' },
      guard: { decision: 'lift-refused' },
    });
  });

  it('a page the broker opened may remove the guard, and the trail says so with who did it', async () => {
    const page = personPage!;
    await page.setGuard('prod', { rules: [{ action: 'read-only' }, { action: 'deny', resources: ['secrets'] }] });
    expect((await audit()).at(-1)).toMatchObject({
      outcome: 'served',
      caller: { name: expect.stringMatching(/^a Kubecred page \(link of the broker/), client: 'web-ui' },
      guard: { decision: 'changed', rules: 2 },
    });
    await page.setGuard('prod', { rules: null });
    expect(await configGuard()).toBeUndefined();
    expect((await audit()).at(-1)).toMatchObject({ caller: { client: 'web-ui' }, guard: { decision: 'removed' } });
  });
});
