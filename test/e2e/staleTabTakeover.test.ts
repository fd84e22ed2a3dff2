import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { launchChromium, type TestChromium } from '../support/chromium.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { REPO_ROOT, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const SHOTS = process.env.KUBECRED_SHOTS ?? path.join(REPO_ROOT, 'test-results', 'screenshots');
const TYPED_PASSWORD = 'my-keystone-password-c1';
const FAKE_TITLE = 'Keystone login for profile demo, asked by kubectl (pid 4242)';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly authorization: string | undefined;
  readonly body: string;
}

/**
 * Another local user's server on the port the broker left: it answers like the broker, with a
 * real state (taken from the broker before it stopped) and a made-up password question, and
 * it records everything a page sends it.
 */
async function squatter(port: number, realState: Record<string, unknown>): Promise<{ server: Server; seen: Seen[] }> {
  const seen: Seen[] = [];
  const fakeState = {
    ...realState,
    prompts: [
      {
        id: 'f1',
        kind: 'form',
        profile: 'demo',
        title: FAKE_TITLE,
        fields: [{ name: 'password', label: 'Password', secret: true }],
        waiting: 1,
        expiresAt: new Date(Date.now() + 600_000).toISOString(),
      },
    ],
  };
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      seen.push({ method: request.method!, url: request.url!, authorization: request.headers.authorization, body });
      if (request.url === '/api/events') {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(`event: proof\ndata: ${'A'.repeat(43)}\n\n`);
        response.write(`event: state\ndata: ${JSON.stringify(fakeState)}\n\n`);
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      if (request.url === '/api/session/proof') response.end(JSON.stringify({ proof: 'B'.repeat(43) }));
      else if (request.url === '/api/state') response.end(JSON.stringify(fakeState));
      else response.end('{}');
    });
  });
  // The broker's port frees as it exits: take it as soon as it can be had.
  for (let attempt = 0; ; attempt++) {
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve());
      });
      return { server, seen };
    } catch (error) {
      if (attempt > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

// Security review 3, C1: a tab left open after the broker stops kept reconnecting to its port
// with its bearer, and showed whatever answered there, a fake password question included.
describe('a web UI tab whose broker stopped, and a program that takes its port', () => {
  let home: TempHome;
  let broker: TestBroker;
  let chromium: TestChromium;
  let browserStandIn: RecordingBrowser;
  let squat: { server: Server; seen: Seen[] } | undefined;
  const { cli } = callersFor(() => home.dir);

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    await writeConfig(home.dir, 'profiles:\n  - { name: demo, provider: static }\n');
    browserStandIn = await recordingBrowser(home.dir);
    broker = await startTestBroker(home.dir, { KUBECRED_BROWSER: browserStandIn.command }, ['--ui']);
    chromium = await launchChromium();
    await mkdir(SHOTS, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    squat?.server.closeAllConnections();
    squat?.server.close();
    await chromium?.close();
    await broker?.stop();
    await home?.cleanup();
  });

  it('shows nothing the new server sends, sends it no session and nothing typed, and says the broker is gone', async () => {
    expect((await cli(['ui'])).code).toBe(0);
    const page = chromium.page;
    await browserStandIn.openIn(page, 0);
    await page.locator('[data-profile="demo"]').waitFor({ timeout: 15_000 });
    const origin = new URL(page.url()).origin;
    const realState = await page.evaluate(async () => {
      const session = sessionStorage.getItem('kubecred-session');
      return (await fetch('/api/state', { headers: { authorization: `Bearer ${session}` } })).json();
    });

    expect((await cli(['stop'])).code).toBe(0);
    squat = await squatter(Number(new URL(origin).port), realState as Record<string, unknown>);

    await page
      .getByText(/not the Kubecred broker that opened this page/)
      .waitFor({ timeout: 20_000 })
      .catch(async (error: unknown) => {
        // Without the check, the fake question is on screen by now: type into it, as the victim would.
        const field = page.locator('input[type="password"]');
        if (await field.count()) {
          await field.fill(TYPED_PASSWORD);
          await page
            .getByRole('button', { name: /log in|submit|continue/i })
            .first()
            .click();
          await new Promise((resolve) => setTimeout(resolve, 1_000));
        }
        throw error;
      });
    await page.screenshot({ path: path.join(SHOTS, 'stale-tab-not-our-broker.png') });
    expect(await page.innerText('body')).not.toContain(FAKE_TITLE);
    expect(await page.locator('input[type="password"]').count()).toBe(0);
    // It did reach the new server (the test is not passing on silence), and gave it nothing.
    expect(squat.seen.map((s) => `${s.method} ${s.url}`)).toContain('POST /api/session/proof');
    expect(squat.seen.filter((s) => s.authorization)).toEqual([]);
    expect(squat.seen.filter((s) => s.url.startsWith('/api/prompts'))).toEqual([]);
    expect(JSON.stringify(squat.seen)).not.toContain(TYPED_PASSWORD);
    // Nothing after: a page that found an impostor does not keep knocking.
    const knocks = squat.seen.length;
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(squat.seen.length).toBe(knocks);
  });
});
