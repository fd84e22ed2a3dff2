import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { seriousAxeViolations } from '../support/axe.js';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { buildRenderer, launchChromium, type TestChromium } from '../support/chromium.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { REPO_ROOT, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const ADMIN_TOKEN = 'kc-choices-admin-5b1e9d7a3c';
const CI_TOKEN = 'kc-choices-ci-8f2a6c0e4d';
const ISSUER = 'https://login.example.test/realms/lab';
const SHOTS = path.join(REPO_ROOT, 'test-results', 'screenshots');

// Four users as a person's lab kubeconfig has them, each behind a context whose name is the one
// they think in: two pasted tokens, aws eks get-token, and kubelogin run as `kubectl oidc-login`.
const KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
  - name: lab
    cluster:
      server: https://lab.example.test:6443
contexts:
  - name: lab-admin
    context:
      cluster: lab
      user: admin-token
  - name: lab-ci
    context:
      cluster: lab
      user: ci-token
  - name: lab-eks
    context:
      cluster: lab
      user: eks-admin
  - name: lab-sso
    context:
      cluster: lab
      user: oidc-kubelogin
current-context: lab-admin
users:
  - name: admin-token
    user:
      token: ${ADMIN_TOKEN}
  - name: ci-token
    user:
      token: ${CI_TOKEN}
  - name: eks-admin
    user:
      exec:
        apiVersion: client.authentication.k8s.io/v1beta1
        command: aws
        args: [--region, eu-west-1, eks, get-token, --cluster-name, lab]
        env:
          - name: AWS_PROFILE
            value: lab-admin
  - name: oidc-kubelogin
    user:
      exec:
        apiVersion: client.authentication.k8s.io/v1beta1
        command: kubectl
        args:
          - oidc-login
          - get-token
          - --oidc-issuer-url=${ISSUER}
          - --oidc-client-id=kubernetes
`;

type KubeconfigUser = { name: string; user: Record<string, unknown> & { exec?: { command: string } } };
type ConfigProfile = { name: string; provider: string; [setting: string]: unknown };

// New-user finding N13: the wizard's per-user choices, Kubecred's own login for kubelogin and
// the undo button, driven in Chromium against the real broker and its files.
describe('the import wizard: choosing users, Kubecred’s own login, and undo (kubecred daemon --ui)', () => {
  let home: TempHome;
  let broker: TestBroker;
  let chromium: TestChromium;
  let page: Page;
  let browserStandIn: RecordingBrowser;
  let kubeconfig: string;
  let configFile: string;
  let wizard: Locator;

  const users = async () => (parseYaml(await readFile(kubeconfig, 'utf8')) as { users: KubeconfigUser[] }).users;
  const user = async (name: string) => (await users()).find((u) => u.name === name)!.user;
  const profiles = async () =>
    (parseYaml(await readFile(configFile, 'utf8')) as { profiles?: ConfigProfile[] | null }).profiles ?? [];
  /** The page in each theme, and axe-core's serious and critical findings in each (none expected). */
  const shotBoth = async (name: string) => {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({
        path: path.join(SHOTS, `webui-import-choices-${name}-${colorScheme}.png`),
        fullPage: true,
      });
      expect(await seriousAxeViolations(page), `${name} ${colorScheme}`).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  };

  beforeAll(async () => {
    assertBuilt({ shim: true });
    await buildRenderer();
    await mkdir(SHOTS, { recursive: true });
    home = await makeTempHome();
    await writeConfig(home.dir, 'profiles: []\n');
    configFile = path.join(home.dir, 'config.yaml');
    await mkdir(path.join(home.dir, 'kube'), { recursive: true });
    kubeconfig = path.join(home.dir, 'kube', 'config');
    await writeFile(kubeconfig, KUBECONFIG, { mode: 0o600 });
    browserStandIn = await recordingBrowser(home.dir);
    broker = await startTestBroker(home.dir, { KUBECRED_BROWSER: browserStandIn.command, KUBECONFIG: kubeconfig }, [
      '--ui',
    ]);
    chromium = await launchChromium({ width: 1000, height: 900 });
    page = chromium.page;
    wizard = page.locator('section[aria-label="kubeconfig import"]');
  }, 180_000);

  afterAll(async () => {
    await chromium?.close();
    await broker?.stop();
    await home?.cleanup();
  });

  it('names each user by its contexts, counts the checked users, and shows the eks news as good news', async () => {
    await browserStandIn.openIn(page, 0, 10_000);
    await page
      .getByRole('link', { name: /^Import (my )?kubeconfig$/ })
      .first()
      .click({ timeout: 10_000 });
    await wizard.getByRole('button', { name: 'Look at my kubeconfig' }).click();
    await wizard.locator('[data-move="admin-token"]').waitFor({ timeout: 10_000 });

    // A row is one sentence that starts with the context, the user's name beside it.
    expect(await wizard.locator('[data-move="admin-token"] .move-line').innerText()).toBe(
      'lab-admin (user admin-token) becomes a static profile named admin-token',
    );
    expect(await wizard.locator('[data-move="eks-admin"] .move-line').innerText()).toBe(
      'lab-eks (user eks-admin) becomes an eks profile named eks-admin',
    );
    expect(await wizard.locator('[data-move="oidc-kubelogin"] .move-line').innerText()).toBe(
      'lab-sso (user oidc-kubelogin) becomes an exec profile named oidc-kubelogin',
    );
    expect((await wizard.locator('[data-move="admin-token"] .move-line').boundingBox())!.height).toBeLessThan(30);

    // Every user starts checked; unchecking one takes it out of the count on the button.
    expect(await wizard.getByRole('button', { name: /^Import \d+ users?$/ }).innerText()).toBe('Import 4 users');
    await wizard.getByRole('checkbox', { name: 'Import ci-token' }).uncheck();
    expect(await wizard.getByRole('button', { name: /^Import \d+ users?$/ }).innerText()).toBe('Import 3 users');
    expect(await wizard.getByRole('checkbox', { name: 'Import admin-token' }).isChecked()).toBe(true);

    // The eks row's news is in the ok colour, not the warning's amber; the kubelogin row's offer is a warning.
    const eks = wizard.locator('[data-move="eks-admin"]');
    expect(await eks.locator('.news').innerText()).toMatch(
      /^✓ this was aws eks get-token: Kubecred now makes the same tokens itself from AWS profile "lab-admin"/,
    );
    expect(await eks.locator('.note').count()).toBe(0);
    const kubeloginNote = wizard.locator('[data-move="oidc-kubelogin"] .note').first();
    // N13: beside its own button, the offer names no terminal command that does the same.
    const offer = wizard.locator('[data-move="oidc-kubelogin"] .note', { hasText: 'Kubecred can log in to' });
    expect(await offer.count()).toBe(1);
    expect(await offer.innerText()).not.toContain('kubecred import --oidc');
    const color = (el: Locator) => el.evaluate((node) => getComputedStyle(node).color);
    expect(await color(eks.locator('.news'))).not.toBe(await color(kubeloginNote));
    expect(await color(eks.locator('.news'))).toBe(
      await page.evaluate(() => {
        const probe = document.createElement('span');
        probe.style.color = 'var(--ok)';
        document.body.append(probe);
        const ok = getComputedStyle(probe).color;
        probe.remove();
        return ok;
      }),
    );
  });

  it("switches the kubelogin row to Kubecred's own login, in the row and in config.yaml's preview", async () => {
    const row = wizard.locator('[data-move="oidc-kubelogin"]');
    await shotBoth('kubelogin-offered');
    await wizard.getByText(/The profiles added to config\.yaml/).click();
    const config = wizard.locator('pre[aria-label="config.yaml profiles"]');
    expect(await config.innerText()).toMatch(/- name: oidc-kubelogin\n\s+description: .*\n\s+provider: exec\n/);
    // The unchecked user has no profile to add.
    expect(await config.innerText()).not.toContain('ci-token');

    await row.getByRole('button', { name: "Use Kubecred's own login" }).click();
    expect(await row.locator('.move-line').innerText()).toBe(
      'lab-sso (user oidc-kubelogin) becomes an oidc profile named oidc-kubelogin',
    );
    expect(await row.locator('.news').innerText()).toMatch(
      new RegExp(`^✓ Kubecred logs in to ${ISSUER.replaceAll('.', '\\.')} itself instead of running kubelogin`),
    );
    expect(await row.locator('.note').count()).toBe(0);
    const text = await config.innerText();
    const switched = /- name: oidc-kubelogin\n((?:\s{4}.*\n?)*)/.exec(text)?.[1] ?? '';
    expect(switched).toMatch(/provider: oidc/);
    expect(switched).toContain(`issuer: ${ISSUER}`);
    expect(switched).toMatch(/clientId: kubernetes/);
    expect(switched).not.toMatch(/provider: exec|oidc-login/);
    // And back, then forth again: the button is a choice, not a one-way step.
    await row.getByRole('button', { name: 'Keep kubelogin' }).click();
    expect(await config.innerText()).toMatch(/- name: oidc-kubelogin\n\s+description: .*\n\s+provider: exec\n/);
    await row.getByRole('button', { name: "Use Kubecred's own login" }).click();
    expect(await row.getByRole('button', { name: 'Keep kubelogin' }).count()).toBe(1);
    // The row's button stands apart from the news above it.
    const gap = await row.evaluate((li) => {
      const news = li.querySelector('.news')!.getBoundingClientRect();
      const button = li.querySelector('button')!.getBoundingClientRect();
      return button.top - news.bottom;
    });
    expect(gap).toBeGreaterThanOrEqual(4);
    await shotBoth('preview');
  });

  it('imports the checked users only: the unchecked one keeps its token, the others go through Kubecred', async () => {
    const before = await users();
    await wizard.getByRole('button', { name: 'Import 3 users' }).click();
    const done = wizard.locator('[aria-label="import done"]');
    await done.waitFor({ timeout: 15_000 });
    expect(await done.innerText()).toMatch(
      /Moved 3 users into Kubecred[\s\S]*New profiles: admin-token, eks-admin, oidc-kubelogin\./,
    );

    expect(await user('ci-token')).toEqual(before.find((u) => u.name === 'ci-token')!.user);
    for (const name of ['admin-token', 'eks-admin', 'oidc-kubelogin']) {
      const rewritten = await user(name);
      expect(rewritten.exec?.command, name).toMatch(/kubecred-shim$/);
      expect(rewritten.token, name).toBeUndefined();
    }
    const text = await readFile(kubeconfig, 'utf8');
    expect(text).not.toContain(ADMIN_TOKEN);
    expect(text).not.toContain('oidc-login');

    const added = await profiles();
    expect(added.map((p) => [p.name, p.provider])).toEqual([
      ['admin-token', 'static'],
      ['eks-admin', 'eks'],
      ['oidc-kubelogin', 'oidc'],
    ]);
    expect(added.find((p) => p.name === 'eks-admin')).toMatchObject({
      awsProfile: 'lab-admin',
      region: 'eu-west-1',
      clusterId: 'lab',
    });
    expect(added.find((p) => p.name === 'oidc-kubelogin')).toMatchObject({ issuer: ISSUER, clientId: 'kubernetes' });
    await shotBoth('done');
  });

  it('"Undo this import" puts the kubeconfig back byte for byte and removes the profiles', async () => {
    await wizard.getByRole('button', { name: 'Undo this import' }).click();
    const undone = wizard.locator('[aria-label="import undone"]');
    await undone.waitFor({ timeout: 15_000 });
    expect(await undone.innerText()).toMatch(
      new RegExp(
        `Import taken back\\s+${kubeconfig.replaceAll('.', '\\.')} is as before the import; profiles admin-token, eks-admin, oidc-kubelogin are gone\\.`,
      ),
    );
    expect(await readFile(kubeconfig, 'utf8')).toBe(KUBECONFIG);
    expect(await profiles()).toEqual([]);
    await shotBoth('undone');
    for (const token of [ADMIN_TOKEN, CI_TOKEN]) expect(broker.output()).not.toContain(token);
  });
});
