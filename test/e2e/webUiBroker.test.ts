import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { V1_EXEC_INFO, callersFor } from '../support/callers.js';
import { NATIVE_SHIM, REPO_ROOT, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';
import { launchChromium, type TestChromium } from '../support/chromium.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const PIN = '48213';
const SHOTS = path.join(REPO_ROOT, 'test-results', 'screenshots');

describe('the web UI of a real broker (kubecred daemon --ui) answers approvals and PINs', () => {
  let home: TempHome;
  let hsm: SoftHsm;
  let broker: TestBroker;
  let chromium: TestChromium;
  let page: Page;
  let browserStandIn: RecordingBrowser;
  const { cli, credential } = callersFor(
    () => home.dir,
    () => ({ SOFTHSM2_CONF: hsm.conf }),
  );

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    hsm = await createSoftHsm({ dir: path.join(home.dir, 'hsm'), label: 'kc-webui', pin: PIN, soPin: '99887766' });
    const plugin = `["-c", "echo '{\\"apiVersion\\":\\"client.authentication.k8s.io/v1\\",\\"kind\\":\\"ExecCredential\\",\\"status\\":{\\"token\\":\\"guarded-token\\"}}'"]`;
    await writeConfig(
      home.dir,
      `tokens:\n  - { name: hsm, module: ${hsm.module}, label: kc-webui }\nprofiles:\n  - { name: guarded, provider: exec, command: /bin/sh, args: ${plugin}, approval: always }\n  - { name: onhsm, provider: static, secretStore: "token:hsm" }\n`,
    );
    browserStandIn = await recordingBrowser(home.dir);
    broker = await startTestBroker(home.dir, { SOFTHSM2_CONF: hsm.conf, KUBECRED_BROWSER: browserStandIn.command }, [
      '--ui',
    ]);
    chromium = await launchChromium();
    page = chromium.page;
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await broker?.stop();
    hsm?.dispose();
    await home?.cleanup();
  });

  it('opens the web UI in the browser when the broker starts, with a one-time link', async () => {
    // The browser's argv (readable by every local user) names a private page, never the token.
    const argument = await browserStandIn.argument(0, 10_000);
    expect(argument).toMatch(/^file:\/\/.*\/run\/links\/[0-9a-f]{32}\.html$/);
    const link = await browserStandIn.target(0);
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=/);
    expect(argument).not.toContain(new URL(link).hash.slice('#token='.length));
    // The browser gets the file:// page, and Chromium calls leaving it a cross-site navigation.
    expect(await browserStandIn.openIn(page, 0)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    await expect.poll(() => page.locator('[data-profile="guarded"]').count(), { timeout: 10_000 }).toBe(1);
    const again = await cli(['ui', '--print']);
    expect(again.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=/);
  });

  it('asks before serving a guarded profile: Allow serves it, Deny refuses it with a clear line', async () => {
    const allowed = credential('guarded');
    const prompt = page.locator('section[aria-label="approval for guarded"]');
    await prompt.waitFor({ timeout: 15_000 });
    expect(await prompt.innerText()).toMatch(/kubecred-shim|node|vitest|pid \d+/);
    await page.screenshot({ path: path.join(SHOTS, 'webui-broker-approval.png') });
    await prompt.locator('button', { hasText: 'Allow once' }).click();
    const served = await allowed;
    expect(served.code, served.stderr).toBe(0);
    expect(JSON.parse(served.stdout).status.token).toBe('guarded-token');

    // Another command (Allow once covers only the calls of one command of one process).
    const refused = run('/bin/sh', ['-c', `"${NATIVE_SHIM}" credential guarded; exit $?`], {
      env: { ...brokerEnv(home.dir, { SOFTHSM2_CONF: hsm.conf }), KUBERNETES_EXEC_INFO: V1_EXEC_INFO },
    });
    await prompt.waitFor({ timeout: 15_000 });
    await prompt.locator('button', { hasText: 'Deny' }).click();
    const denied = await refused;
    expect(denied.code).toBe(1);
    expect(denied.stdout).toBe('');
    expect(denied.stderr).toMatch(/for profile "guarded" was denied/);
  });

  it('asks for a token PIN in the page, and the secret lands on the token', async () => {
    const storing = cli(['secret', 'set', 'onhsm', 'token'], 'kept-on-the-token');
    const form = page.locator('form[aria-label="PIN for hsm"]');
    await form.waitFor({ timeout: 15_000 });
    await form.locator('input[name="pin"]').fill(PIN);
    await page.screenshot({ path: path.join(SHOTS, 'webui-broker-pin.png') });
    await form.locator('button[type="submit"]').click();
    const stored = await storing;
    expect(stored.code, stored.stderr).toBe(0);
    const answer = await credential('onhsm');
    expect(JSON.parse(answer.stdout).status.token).toBe('kept-on-the-token');
  });
});
