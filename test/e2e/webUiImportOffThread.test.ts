import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { buildRenderer, launchChromium, type TestChromium } from '../support/chromium.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

/** An org's generated kubeconfig: many token users, each with a context (seconds to plan). */
function bigKubeconfig(users: number): string {
  const contexts = Array.from(
    { length: users },
    (_, i) => `- name: ctx-${i}\n  context:\n    cluster: lab\n    user: user-${i}\n`,
  ).join('');
  const entries = Array.from(
    { length: users },
    (_, i) => `- name: user-${i}\n  user:\n    token: big-token-${i}-5c1e\n`,
  ).join('');
  return `apiVersion: v1\nkind: Config\nclusters:\n- name: lab\n  cluster:\n    server: https://127.0.0.1:6443\ncontexts:\n${contexts}users:\n${entries}`;
}

// B11: the wizard's preview of a big kubeconfig ran on the broker's only thread, so every
// kubectl on the machine waited for it.
describe('the import preview of a big kubeconfig', () => {
  let home: TempHome;
  let broker: TestBroker;
  let chromium: TestChromium;
  let page: Page;
  let browserStandIn: RecordingBrowser;
  const { cli, credential } = callersFor(() => home.dir);

  beforeAll(async () => {
    assertBuilt({ shim: true });
    await buildRenderer();
    home = await makeTempHome();
    const kubeconfig = path.join(home.dir, 'big-kubeconfig');
    await writeFile(kubeconfig, bigKubeconfig(4_000), { mode: 0o600 });
    await writeConfig(home.dir, 'profiles:\n  - { name: offthread-dev, provider: static }\n');
    browserStandIn = await recordingBrowser(home.dir);
    broker = await startTestBroker(home.dir, { KUBECRED_BROWSER: browserStandIn.command, KUBECONFIG: kubeconfig }, [
      '--ui',
    ]);
    expect((await cli(['secret', 'set', 'offthread-dev', 'token'], 'dev-token-served-meanwhile')).code).toBe(0);
    chromium = await launchChromium();
    page = chromium.page;
    await browserStandIn.openIn(page, 0, 10_000);
    await page.locator('[data-profile="offthread-dev"]').waitFor({ timeout: 10_000 });
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await broker?.stop();
    await home?.cleanup();
  });

  it('runs beside kubectl: a credential asked while it plans is answered before the preview is', async () => {
    const session = await page.evaluate(() => sessionStorage.getItem('kubecred-session'));
    const origin = new URL(page.url());
    // When the preview's answer starts (its headers): on one thread, nothing else is answered before it.
    const previewAnswered = new Promise<{ status: number; at: number }>((resolve, reject) => {
      const request = http.get(
        {
          host: origin.hostname,
          port: origin.port,
          path: '/api/kubeconfig-import',
          headers: { authorization: `Bearer ${session}`, host: origin.host },
        },
        (response) => {
          resolve({ status: response.statusCode ?? 0, at: Date.now() });
          response.resume();
        },
      );
      request.on('error', reject);
    });
    await new Promise((resolve) => setTimeout(resolve, 300)); // the preview is under way
    const served = await credential('offthread-dev');
    const servedAt = Date.now();
    expect(served.code, served.stderr).toBe(0);
    const preview = await previewAnswered;
    expect(preview.status).toBe(200);
    expect(servedAt).toBeLessThan(preview.at);
    expect(broker.output()).not.toContain('big-token-');
  }, 120_000);
});
