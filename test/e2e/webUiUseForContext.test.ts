import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { seriousAxeViolations } from '../support/axe.js';
import { buildRenderer, launchChromium, type TestChromium } from '../support/chromium.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { REPO_ROOT, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const SHOTS = process.env.KUBECRED_SHOTS ?? path.join(REPO_ROOT, 'test-results', 'screenshots');

// Round 4, N28: a profile no context used said "kubecred install --profile x --context …" for
// the person to type. Its page now offers the kubeconfig's contexts and installs the profile
// for the one picked, as kubecred install does.
describe('"Use for a context…" on the page of a profile of a real broker', () => {
  let home: TempHome;
  let broker: TestBroker;
  let chromium: TestChromium;
  let page: Page;
  let browserStandIn: RecordingBrowser;
  let kubeconfig: string;

  beforeAll(async () => {
    assertBuilt({ shim: true });
    await buildRenderer();
    home = await makeTempHome();
    await writeConfig(home.dir, 'profiles:\n  - { name: lab, provider: static }\n');
    kubeconfig = path.join(home.dir, 'kubeconfig');
    await writeFile(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '  - { name: lab, cluster: { server: "https://lab.example.test:6443" } }',
        'contexts:',
        '  - { name: lab-admin, context: { cluster: lab, user: lab-user } }',
        '  - { name: taken, context: { cluster: lab, user: other } }',
        'users:',
        '  - { name: lab-user, user: {} }',
        '  - { name: other, user: { token: its-own } }',
        'current-context: lab-admin',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    browserStandIn = await recordingBrowser(home.dir);
    broker = await startTestBroker(home.dir, { KUBECONFIG: kubeconfig, KUBECRED_BROWSER: browserStandIn.command }, [
      '--ui',
    ]);
    chromium = await launchChromium({ width: 1280, height: 800 });
    page = chromium.page;
    await browserStandIn.openIn(page, 0, 10_000);
    await page.locator('[data-profile="lab"]').waitFor({ timeout: 10_000 });
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await broker?.stop();
    await home?.cleanup();
  });

  it('picks a context of the kubeconfig; its user then calls the profile, and Used by names it', async () => {
    await page.goto(`${new URL(page.url()).origin}/#/profile/lab`);
    const item = page.locator('section[aria-label="profile lab"]');
    const usedBy = item.locator('.used-by');
    await expect.poll(() => usedBy.innerText()).toContain('No context of your kubeconfig uses this profile yet.');
    expect(await usedBy.innerText()).not.toContain('kubecred install');

    // A user with a credential of its own is refused in the broker's words, and nothing is written.
    await usedBy.getByRole('button', { name: 'Use for a context…' }).click();
    const form = item.locator('form[aria-label="use lab for a context"]');
    await expect
      .poll(() => form.locator('select[name="context"] option').allInnerTexts())
      .toEqual(['lab-admin', 'taken']);
    await form.locator('select[name="context"]').selectOption('taken');
    await form.getByRole('button', { name: 'Use lab there' }).click();
    await expect
      .poll(() =>
        form
          .locator('[role="alert"]')
          .innerText()
          .catch(() => ''),
      )
      .toMatch(/user "other" in .*kubeconfig(:\d+)? has credentials of its own/);

    await form.locator('select[name="context"]').selectOption('lab-admin');
    await page.screenshot({ path: path.join(SHOTS, 'webui-use-for-context-light.png') });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: path.join(SHOTS, 'webui-use-for-context-dark.png') });
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await seriousAxeViolations(page)).toEqual([]);
    await form.getByRole('button', { name: 'Use lab there' }).click();

    await expect
      .poll(
        () =>
          usedBy
            .getByRole('status')
            .innerText()
            .catch(() => ''),
        { timeout: 10_000 },
      )
      .toMatch(/^kubectl --context lab-admin now gets its credentials from lab \(user lab-user in .*kubeconfig\)\.$/);
    // The broker reads the kubeconfig again: the context is listed where the hint was.
    await expect
      .poll(
        () =>
          usedBy
            .getByRole('list', { name: 'kubeconfig contexts' })
            .innerText()
            .catch(() => ''),
        {
          timeout: 10_000,
        },
      )
      .toBe('lab-admin');
    await page.screenshot({ path: path.join(SHOTS, 'webui-use-for-context-done.png') });
    const written = parseYaml(await readFile(kubeconfig, 'utf8')) as {
      users: Array<{ name: string; user: { exec?: { args?: string[] }; token?: string } }>;
    };
    const user = written.users.find((u) => u.name === 'lab-user')!;
    expect(user.user.exec?.args).toEqual(expect.arrayContaining(['lab']));
    expect(written.users.find((u) => u.name === 'other')!.user.token).toBe('its-own');
  });
});
