import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor, V1_EXEC_INFO } from '../support/callers.js';
import { launchChromium, type TestChromium } from '../support/chromium.js';
import { seriousAxeViolations } from '../support/axe.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { NATIVE_SHIM, REPO_ROOT, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const NOBODY = 65534;
const SHOTS = process.env.KUBECRED_SHOTS ?? path.join(REPO_ROOT, 'test-results', 'screenshots');
const isRoot = process.getuid?.() === 0;
const PLUGIN = `["-c", "echo '{\\"apiVersion\\":\\"client.authentication.k8s.io/v1\\",\\"kind\\":\\"ExecCredential\\",\\"status\\":{\\"token\\":\\"guarded-token\\"}}'"]`;

/** A raw HTTP call to the web UI, as a program (not a browser) would make it. */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Another local user's server on another port of 127.0.0.1: records every header a browser sends it. */
async function collector(): Promise<{ server: Server; url: string; seen: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    seen.push(request.headers);
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end(
      request.url === '/'
        ? '<!doctype html><script>fetch("/collect", { credentials: "include" })</script><p>collector</p>'
        : 'ok',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/`, seen };
}

describe('attacks on the web UI of a real broker (kubecred daemon --ui)', () => {
  let home: TempHome;
  let broker: TestBroker;
  let chromium: TestChromium;
  let page: Page;
  let browserStandIn: RecordingBrowser;
  let ui: URL;
  const { cli } = callersFor(() => home.dir);
  const prompt = (profile: string) => page.locator(`section[aria-label="approval for ${profile}"]`);

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    await writeConfig(
      home.dir,
      `profiles:\n  - { name: guarded, provider: exec, command: /bin/sh, args: ${PLUGIN}, approval: always }\n  - { name: once, provider: exec, command: /bin/sh, args: ${PLUGIN}, approval: once-per-process }\n  - { name: kept, provider: static }\n`,
    );
    browserStandIn = await recordingBrowser(home.dir);
    broker = await startTestBroker(home.dir, { KUBECRED_BROWSER: browserStandIn.command }, ['--ui']);
    expect((await cli(['secret', 'set', 'kept', 'token'], 'kept-in-the-keychain')).code).toBe(0);
    chromium = await launchChromium();
    page = chromium.page;
    ui = new URL(await browserStandIn.target(0, 10_000));
    await browserStandIn.openIn(page, 0);
    await page.locator('[data-profile="guarded"]').waitFor({ timeout: 10_000 });
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await broker?.stop();
    await home?.cleanup();
  });

  it('B2: a page on another port of 127.0.0.1 receives no session, and cannot read it', async () => {
    expect(await chromium.context.cookies()).toEqual([]);
    const session = await page.evaluate(() => sessionStorage.getItem('kubecred-session'));
    expect(session).toBeTruthy();
    const other = await collector();
    try {
      await page.goto(other.url);
      await expect.poll(() => other.seen.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(2);
      for (const headers of other.seen) {
        expect(JSON.stringify(headers)).not.toContain(session!);
        expect(headers.cookie).toBeUndefined();
      }
      expect(await page.evaluate(() => sessionStorage.getItem('kubecred-session'))).toBeNull();
    } finally {
      other.server.close();
    }
    // Back on the UI's own origin (no token in the URL), the tab's session still works.
    await page.goto(`${ui.origin}/`);
    await page.locator('[data-profile="guarded"]').waitFor({ timeout: 10_000 });
  });

  it('B12: a used link opens nothing and says how to get a new one; a bare URL says the same', async () => {
    const second = await chromium.context.newPage();
    try {
      await second.goto(ui.href);
      await expect
        .poll(() => second.locator('body').innerText())
        .toMatch(/This link cannot open Kubecred: this link was used already or has expired/);
      expect(await second.locator('body').innerText()).toContain('kubecred ui');
      await second.goto(`${ui.origin}/`);
      await expect.poll(() => second.locator('body').innerText()).toMatch(/no session[\s\S]*kubecred ui/);
      // A fresh link pasted into that same tab (only the fragment changes) opens the UI.
      await second.goto((await cli(['ui', '--print'])).stdout.trim());
      await second.locator('[data-profile="guarded"]').waitFor({ timeout: 10_000 });
    } finally {
      await second.close();
    }
  });

  it('B3, C4: a program cannot allow a request through a link it asked the socket for (any program can ask)', async () => {
    const waiting = run(NATIVE_SHIM, ['credential', 'guarded'], {
      env: { ...brokerEnv(home.dir), KUBERNETES_EXEC_INFO: V1_EXEC_INFO },
    });
    await prompt('guarded').waitFor({ timeout: 15_000 });
    // This test process ran the shim, so it is the caller; now it asks for a link of its own.
    const link = new URL((await cli(['ui', '--print'])).stdout.trim());
    const headers = { host: link.host, 'content-type': 'application/json' };
    const traded = await raw(`${link.origin}/api/session`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ token: link.hash.slice('#token='.length) }),
    });
    expect(traded.status).toBe(200);
    const bearer = { ...headers, authorization: `Bearer ${JSON.parse(traded.body).session}` };
    const state = JSON.parse((await raw(`${link.origin}/api/state`, { headers: bearer })).body) as {
      prompts: Array<{ id: string; kind: string }>;
    };
    const approval = state.prompts.find((p) => p.kind === 'approval')!;
    const selfApproved = await raw(`${link.origin}/api/prompts/${approval.id}`, {
      method: 'POST',
      headers: bearer,
      body: JSON.stringify({ kind: 'approval', allow: true }),
    });
    expect(selfApproved.status).toBe(403);
    expect(selfApproved.body).toContain('can deny an approval but not allow it');
    // N6: the same link opened in a browser tab, as kubecred ui opens it, offers no Allow that the
    // broker would refuse: Deny alone, and where to allow instead.
    const socketTab = await chromium.context.newPage();
    try {
      await socketTab.goto((await cli(['ui', '--print'])).stdout.trim());
      const question = socketTab.locator('section[aria-label="approval for guarded"]');
      await question.waitFor({ timeout: 10_000 });
      expect(await question.locator('button').allInnerTexts()).toEqual(['Deny']);
      expect(await question.innerText()).toMatch(/can deny but not allow\. To allow, use the Kubecred window/);
      expect(await seriousAxeViolations(socketTab)).toEqual([]);
      for (const colorScheme of ['light', 'dark'] as const) {
        await socketTab.emulateMedia({ colorScheme });
        await socketTab.screenshot({ path: path.join(SHOTS, `approval-deny-only-${colorScheme}.png`) });
      }
    } finally {
      await socketTab.close();
    }
    // The user's own window still decides.
    await prompt('guarded').locator('button', { hasText: 'Deny' }).click();
    const denied = await waiting;
    expect(denied.code).toBe(1);
    expect(denied.stdout).toBe('');
    // Nor does a kubecred ui tab's Settings offer to ask less, which the broker would refuse.
    const settingsTab = await chromium.context.newPage();
    try {
      await settingsTab.goto((await cli(['ui', '--print'])).stdout.trim());
      await settingsTab.getByRole('link', { name: 'Settings' }).click();
      const policy = settingsTab.locator('[data-approval="guarded"] select');
      await policy.waitFor({ timeout: 10_000 });
      expect(
        await policy
          .locator('option')
          .evaluateAll((options) =>
            options.map((o) => [(o as HTMLOptionElement).value, (o as HTMLOptionElement).disabled]),
          ),
      ).toEqual([
        ['never', true],
        ['once-per-process', true],
        ['always', false],
      ]);
      expect(await settingsTab.locator('main').innerText()).toContain('it can make Kubecred ask more, not less');
      await settingsTab.screenshot({ path: path.join(SHOTS, 'settings-ask-more-only.png') });
    } finally {
      await settingsTab.close();
    }
  });

  it('B3: a grant belongs to the process the kernel names, not to a pid a client claims', async () => {
    // A long-lived program asks and is allowed once-per-process.
    const granted = spawn('/bin/sh', ['-c', `"${NATIVE_SHIM}" credential once && sleep 60`], {
      env: { ...brokerEnv(home.dir), KUBERNETES_EXEC_INFO: V1_EXEC_INFO },
      stdio: 'ignore',
    });
    try {
      await prompt('once').waitFor({ timeout: 15_000 });
      expect(await prompt('once').innerText()).toContain(`pid ${granted.pid}`);
      await prompt('once').locator('button', { hasText: 'Allow once' }).click();
      await prompt('once').waitFor({ state: 'detached', timeout: 10_000 });
      // Another program claims to be that process.
      const secret = (await readFile(path.join(home.dir, 'run', 'client-secret'), 'utf8')).trim();
      const spoofed = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const body = JSON.stringify({
          argv: ['credential', 'once'],
          execInfo: V1_EXEC_INFO,
          parentPid: granted.pid,
          client: 'shim',
        });
        const req = httpRequest(
          {
            socketPath: broker.socket,
            path: '/v1/credential',
            method: 'POST',
            headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
          },
          (res) => {
            let text = '';
            res.on('data', (c: Buffer) => (text += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      // It is not served on the grant: it is asked about, under its real caller (this test's
      // parent: the kernel names the program that ran the connecting process, as for a shim).
      await prompt('once').waitFor({ timeout: 15_000 });
      const text = await prompt('once').innerText();
      expect(text).toContain(`pid ${process.ppid}`);
      expect(text).not.toContain(`pid ${granted.pid}`);
      await prompt('once').locator('button', { hasText: 'Deny' }).click();
      expect((await spoofed).status).toBe(403);
    } finally {
      granted.kill();
    }
  });

  it('B3: a program that renames itself (prctl) is shown by the executable the kernel ran', async () => {
    const script = `import ctypes, os, subprocess, sys\nctypes.CDLL(None).prctl(15, b"kubectl", 0, 0, 0)\nsys.exit(subprocess.run([os.environ["SHIM"], "credential", "guarded"]).returncode)\n`;
    const waiting = run('python3', ['-c', script], {
      env: { ...brokerEnv(home.dir), KUBERNETES_EXEC_INFO: V1_EXEC_INFO, SHIM: NATIVE_SHIM },
    });
    await prompt('guarded').waitFor({ timeout: 15_000 });
    const text = await prompt('guarded').innerText();
    expect(text).toMatch(/python3/);
    expect(text).not.toMatch(/\bkubectl\b/);
    await prompt('guarded').locator('button', { hasText: 'Deny' }).click();
    expect((await waiting).code).not.toBe(0);
  });

  it.runIf(isRoot)('B1: another user cannot read the redirect page that carries a link', async () => {
    const argument = await browserStandIn.argument(0);
    const file = new URL(argument).pathname;
    const read = await run('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--', 'cat', file], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    });
    expect(read.code).not.toBe(0);
    expect(read.stdout).toBe('');
    // Nothing under the run dir but the links dir is readable by the browser: and that only by us.
    expect((await readdir(path.join(home.dir, 'run'))).sort()).toContain('links');
  });

  it('B6: a flood of idle connections cannot crash the broker or fill its descriptors', async () => {
    const pid = broker.process.pid!;
    const before = (await readdir(`/proc/${pid}/fd`)).length;
    // Another program opens 400 connections that never finish their headers.
    const flood = spawn(
      process.execPath,
      [
        '-e',
        `
      const net = require('net'); const socks = [];
      for (let i = 0; i < 400; i++) { const s = net.connect(${ui.port}, '127.0.0.1', () => s.write('GET / HTTP/1.1\\r\\nHost: x')); s.on('error', () => {}); socks.push(s); }
      setTimeout(() => process.exit(0), 30000);`,
      ],
      { stdio: 'ignore' },
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const during = (await readdir(`/proc/${pid}/fd`)).length;
      expect(during - before).toBeLessThan(100);
      // The keychain-backed request that used to crash the broker under descriptor pressure is served.
      const served = await run(NATIVE_SHIM, ['credential', 'kept'], {
        env: { ...brokerEnv(home.dir), KUBERNETES_EXEC_INFO: V1_EXEC_INFO },
      });
      expect(served.code, served.stderr).toBe(0);
      expect(served.stdout).toContain('kept-in-the-keychain');
      // Half-sent requests are dropped after the headers timeout; the page is served again.
      await expect
        .poll(
          async () => (await raw(`${ui.origin}/`, { headers: { host: ui.host } }).catch(() => ({ status: 0 }))).status,
          { timeout: 20_000, interval: 1_000 },
        )
        .toBe(200);
      expect(broker.process.exitCode).toBeNull();
    } finally {
      flood.kill();
    }
  }, 60_000);
});
