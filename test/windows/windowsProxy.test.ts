import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/main/platform/freePort.js';
import { writeConfig } from '../support/broker.js';
import { writeUninstalledKubeconfig } from '../support/kubeconfig.js';
import { WHOAMI_ARGS } from '../support/kubectl.js';
import type { KubeApiServer } from '../support/kubeApiServer.js';
import { launchChromium } from '../support/chromium.js';
import { REPO_ROOT } from '../support/repo.js';
import { startWindowsCluster } from '../support/windowsCluster.js';
import { windowsRecordingBrowser, type WindowsRecordingBrowser } from '../support/windowsRecordingBrowser.js';
import type { TempHome } from '../support/tempHome.js';
import { endWindowsWorld, WineRunner, windowsPath, type WineWorld } from '../support/wine.js';

const TOKEN = 'kc-windows-proxy-token-71d0c2a94e';
const CLI = windowsPath(path.join(REPO_ROOT, 'bin', 'kubecred'));

/**
 * The exec proxy as Windows runs it, under Wine: the broker on node.exe starts
 * kubecred-proxy.exe, `kubecred install` points kubectl.exe's context at its loopback listener,
 * and the profile's own token goes upstream from the proxy, with a read-only guard in front.
 */
describe('Windows, under Wine: kubectl.exe through kubecred-proxy.exe', () => {
  let world: WineWorld;
  let home: TempHome;
  let api: KubeApiServer;
  let wine: WineRunner;
  let kubeconfig: string;
  let configYaml: (guard: string) => string;
  let browser: WindowsRecordingBrowser;
  const kubecred = (args: string[], input?: string) =>
    wine.run(world.nodeExe, [CLI, ...args], input === undefined ? {} : { input });
  const kubectl = (args: readonly string[]) =>
    wine.run(world.kubectl, ['--kubeconfig', windowsPath(kubeconfig), '--context', 'wp', ...args]);

  beforeAll(async () => {
    // May do anything the cluster allows: only the guard stands between it and a delete.
    const cluster = await startWindowsCluster([
      { token: TOKEN, user: 'proxied-windows-user', groups: ['system:masters'] },
    ]);
    ({ world, home, api } = cluster);
    const { pki } = cluster;
    const port = await freePort();
    configYaml = (guard) =>
      `profiles:\n  - name: wp\n    provider: static\n    proxy: { port: ${port}, server: "${api.url}", caFile: '${windowsPath(pki.caCertPath)}' }\n    guard: ${guard}\n`;
    await writeConfig(home.dir, configYaml('read-only'));
    const scratch = path.join(home.dir, 'wine-io');
    await mkdir(scratch);
    // The broker opens its approval page in "the browser": a Windows program that records it.
    browser = await windowsRecordingBrowser(path.join(home.dir, 'browser'));
    wine = new WineRunner(world, scratch, {
      KUBECRED_HOME: windowsPath(home.dir),
      KUBECRED_BROWSER: browser.command,
      WINEPATH: windowsPath(path.dirname(world.nodeExe)),
    });
    kubeconfig = path.join(home.dir, 'kubeconfig');
    await writeUninstalledKubeconfig(kubeconfig, { server: api.url, caPem: pki.caPem }, 'wp');
  }, 600_000);

  afterAll(
    () =>
      endWindowsWorld({
        world,
        kubecred: wine ? kubecred : undefined,
        profiles: ['wp'],
        stopAlso: [() => api?.stop(), () => home?.cleanup()],
      }),
    60_000,
  );

  it('install --proxy points the context at the listener; kubectl.exe is the user, with no token in its kubeconfig', async () => {
    const stored = await kubecred(['secret', 'set', 'wp', 'token'], TOKEN);
    expect(stored.code, stored.stderr).toBe(0);
    const installed = await kubecred([
      'install',
      '--profile',
      'wp',
      '--context',
      'wp',
      '--kubeconfig',
      windowsPath(kubeconfig),
    ]);
    expect(installed.code, installed.stderr + installed.stdout).toBe(0);
    const whoami = await kubectl(WHOAMI_ARGS);
    expect(whoami.stdout, whoami.stderr).toBe('proxied-windows-user');
    const written = await readFile(kubeconfig, 'utf8');
    expect(written).toMatch(/server: https:\/\/127\.0\.0\.1:\d+/);
    expect(written).not.toContain(TOKEN);
    const status = await kubecred(['status']);
    expect(status.stdout).toMatch(/^wp: through kubecred-proxy, listening on 127\.0\.0\.1:\d+, guard on \(1 rule\)$/m);
  });

  it('the read-only guard refuses a delete the cluster would allow, with its own words; a read goes through', async () => {
    const refused = await kubectl(['delete', 'namespace', 'default']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      'kubecred guard refused: delete namespaces "default" (profile wp, rule "read-only"). To lift the guard for 15 minutes: kubecred guard wp off --for 15m',
    );
    const read = await kubectl(['get', 'namespace', 'default', '-o', 'name']);
    expect(read.stdout, read.stderr).toBe('namespace/default\n');
  });

  it('a confirm rule asks in the window, naming kubectl.exe as Windows knows it; Allow once lets the delete through', async () => {
    await writeConfig(
      home.dir,
      configYaml('{ rules: [{ name: ask before deletes, action: confirm, verbs: [delete] }] }'),
    );
    const created = await kubectl(['create', 'configmap', 'doomed']);
    expect(created.code, created.stderr).toBe(0);
    const deleting = wine.run(world.kubectl, [
      '--kubeconfig',
      windowsPath(kubeconfig),
      '--context',
      'wp',
      'delete',
      'configmap',
      'doomed',
    ]);
    const chromium = await launchChromium({ width: 1280, height: 800 });
    try {
      // The page the broker opened itself: only such a page (or the tray's window) may allow.
      await browser.openIn(chromium.page, 0);
      const dialog = chromium.page.getByRole('dialog', { name: 'Allow this request to wp?' });
      await dialog.waitFor({ timeout: 60_000 });
      expect(await dialog.innerText()).toMatch(
        /kubectl\.exe \(pid \d+\) wants to delete configmaps "doomed" in namespace "default"/,
      );
      await chromium.page.screenshot({
        path: path.join(REPO_ROOT, 'test-results', 'screenshots', 'windows-guard-confirm.png'),
      });
      await dialog.getByRole('button', { name: 'Allow once' }).click({ timeout: 5_000 });
      const deleted = await deleting;
      expect(deleted.code, deleted.stderr).toBe(0);
      expect(deleted.stdout).toContain('configmap "doomed" deleted');
    } finally {
      await chromium.close();
    }
  });
});
