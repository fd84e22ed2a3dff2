import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { launchChromium, type TestChromium } from '../support/chromium.js';
import { startKubeApiServer, type KubeApiServer } from '../support/kubeApiServer.js';
import { newestKubectl, runKubectl, WHOAMI_ARGS } from '../support/kubectl.js';
import { createTestPki } from '../support/pki.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';
import { JourneyTranscript } from '../support/journeyTranscript.js';
import { withoutTerminal } from '../support/terminal.js';

const TOKEN = 'kc-first-run-token-8e2d4b6a0c';

/**
 * Issue 26, the first run: a person with a kubeconfig that holds a plaintext token types
 * `kubecred ui` (no broker runs yet), the browser opens the window, they import the kubeconfig
 * with two clicks, and kubectl then reaches the real kube-apiserver through Kubecred, with no
 * token left in the file.
 */
describe('journey: first run, from `kubecred ui` to kubectl through Kubecred', () => {
  let home: TempHome;
  let api: KubeApiServer;
  let chromium: TestChromium;
  let browserStandIn: RecordingBrowser;
  let kubeconfig: string;
  let userHome: string;
  // The person's own home, where kubectl and Kubecred find ~/.kube/config (the broker reads no
  // KUBECONFIG from whichever shell started it).
  const env = () => ({ HOME: userHome, KUBECRED_BROWSER: browserStandIn.command });
  const { cli } = callersFor(() => home.dir, env);

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    const pki = await createTestPki(path.join(home.dir, 'pki'));
    api = await startKubeApiServer({
      dir: path.join(home.dir, 'apiserver'),
      pki,
      tokens: [{ token: TOKEN, user: 'first-run' }],
    });
    userHome = path.join(home.dir, 'user');
    await mkdir(path.join(userHome, '.kube'), { recursive: true });
    kubeconfig = path.join(userHome, '.kube', 'config');
    const ca = Buffer.from(api.caPem).toString('base64');
    await writeFile(
      kubeconfig,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: lab\n  cluster: {server: '${api.url}', certificate-authority-data: ${ca}}\ncontexts:\n- name: lab\n  context: {cluster: lab, user: lab-admin}\ncurrent-context: lab\nusers:\n- name: lab-admin\n  user:\n    token: ${TOKEN}   # rotate quarterly\n`,
      { mode: 0o600 },
    );
    browserStandIn = await recordingBrowser(home.dir);
    chromium = await launchChromium({ width: 1000, height: 720 });
  }, 180_000);

  afterAll(async () => {
    await cli(['stop']);
    await chromium?.close();
    await api?.stop();
    await home?.cleanup();
  });

  it('`kubecred ui` starts the broker and opens the window; Import moves the token to the keychain; kubectl works', async () => {
    const journey = new JourneyTranscript('First run: kubecred ui, import, kubectl');
    journey.did('kubecred ui (no broker runs yet)');
    const typed = await cli(['ui']);
    journey.saw('kubecred ui', typed.stderr);
    expect(typed.code, typed.stderr).toBe(0);
    expect(typed.stderr).toContain('opened the web UI in your browser');
    const page = chromium.page;
    await browserStandIn.openIn(page, 0);
    const importLink = page.getByRole('link', { name: /^Import (my )?kubeconfig$/ }).first();
    await importLink.waitFor({ timeout: 10_000 });
    journey.saw('window', await page.locator('main').innerText());
    journey.did('clicks Import my kubeconfig, then Look at my kubeconfig');
    await importLink.click();
    const wizard = page.locator('section[aria-label="kubeconfig import"]');
    await wizard.locator('button', { hasText: 'Look at my kubeconfig' }).click();
    await wizard.locator('[data-move="lab-admin"]').waitFor({ timeout: 10_000 });
    expect(await wizard.innerText()).not.toContain(TOKEN);
    journey.saw('window, import plan', await wizard.locator('[data-move="lab-admin"]').innerText());
    journey.did('clicks Import 1 user');
    await wizard.locator('button', { hasText: 'Import 1 user' }).click();
    await wizard.locator('[aria-label="import done"]').waitFor({ timeout: 15_000 });
    journey.saw('window', await wizard.locator('[aria-label="import done"]').innerText());

    const written = await readFile(kubeconfig, 'utf8');
    expect(written).not.toContain(TOKEN);
    expect(written).toMatch(/kubecred/);
    const whoami = await runKubectl(newestKubectl().path, [...WHOAMI_ARGS], {
      kubeconfig,
      env: { ...brokerEnv(home.dir), HOME: userHome },
    });
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(whoami.stdout).toBe('first-run');
    journey.did('kubectl auth whoami');
    journey.saw('kubectl', `${whoami.stdout}\n${whoami.stderr}`);
    await journey.save('first-run');
    process.stderr.write(`journey first run: kubectl through Kubecred in ${whoami.ms} ms after the import\n`);
  });

  it('then approval "every time" set in Settings: with no page open, the broker opens one itself, kubectl is told where at once, and Allow once serves it', async () => {
    const journey = new JourneyTranscript('Approval every time: kubectl with no terminal, no page open');
    const page = chromium.page;
    journey.did('Settings: approval for lab-admin set to every time; closes the page');
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.locator('[data-approval="lab-admin"] select').selectOption('always');
    await expect
      .poll(async () => (await readFile(path.join(home.dir, 'config.yaml'), 'utf8')).includes('always'))
      .toBe(true);
    await page.close();
    const before = (await browserStandIn.opened()).length;
    journey.did('kubectl auth whoami (no terminal)');
    const call = journey.watch(
      'kubectl stderr',
      withoutTerminal([newestKubectl().path, '--kubeconfig', kubeconfig, ...WHOAMI_ARGS], {
        ...brokerEnv(home.dir),
        HOME: userHome,
      }),
    );
    const told = await call.waitFor(
      /kubecred: profile "lab-admin" waits for your approval in the Kubecred window/,
      5_000,
    );
    const opened = await chromium.context.newPage();
    await browserStandIn.openIn(opened, before, 10_000);
    const approval = opened.getByRole('dialog', { name: /lab-admin/ });
    await approval.waitFor({ timeout: 10_000 });
    journey.saw('page the broker opened', await approval.innerText());
    journey.did('clicks Allow once');
    await approval.getByRole('button', { name: 'Allow once' }).click();
    const served = await call.exited;
    expect(served.code, call.screen()).toBe(0);
    expect(call.screen()).toContain('first-run');
    await journey.save('approval-no-terminal');
    process.stderr.write(
      `journey approval: kubectl told where after ${told.afterMs} ms; served after ${served.afterMs} ms\n`,
    );
  });
});
