import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, writeConfig } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { writeExecKubeconfig } from '../support/kubeconfig.js';
import { findKubectlBuilds, runKubectl } from '../support/kubectl.js';
import { createTestPki } from '../support/pki.js';
import { NATIVE_SHIM, REPO_ROOT, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const MAIN = path.join(REPO_ROOT, 'dist', 'main', 'electron', 'main.js');
const FAKE_ELECTRON = path.join(REPO_ROOT, 'test', 'support', 'fakeElectron', 'register.mjs');

interface Recorded {
  readonly event: string;
  readonly labels?: string[];
  readonly title?: string;
}

/**
 * Electron review 2, F9: a static profile nobody stored a token for read "ready" in the tray
 * while kubectl was told it has no token, then "failed", as if a retry could help. The tray's
 * real main process (a stand-in `electron` records its menus and notifications) beside a real
 * kubectl: before any use "not used yet", after kubectl found no token "no secret stored" in the
 * menu, the notification and `kubecred status`, and "ready" once the token is stored and used.
 */
describe('the tray on a static profile with no secret stored', () => {
  let home: TempHome;
  let app: ChildProcess;
  let kubeconfig: string;
  let output = '';
  const { cli } = callersFor(() => home.dir);
  const log = () => path.join(home.dir, 'electron-calls.jsonl');
  const calls = async (): Promise<Recorded[]> =>
    (await readFile(log(), 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Recorded);
  const menu = async (): Promise<string[]> =>
    (await calls()).filter((call) => call.event === 'tray.setContextMenu').at(-1)?.labels ?? [];
  const kubectl = () => runKubectl(findKubectlBuilds()[0]!.path, ['get', '--raw', '/api'], { kubeconfig });

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    const pki = await createTestPki(path.join(home.dir, 'pki'));
    await writeConfig(home.dir, 'profiles:\n  - { name: first, provider: static }\n');
    // No API server answers: the credential is what is looked at, and kubectl asks for it first.
    kubeconfig = await writeExecKubeconfig({
      path: path.join(home.dir, 'kubeconfig'),
      server: 'https://127.0.0.1:1',
      caPem: pki.caPem,
      command: NATIVE_SHIM,
      args: ['credential', 'first'],
      apiVersion: 'client.authentication.k8s.io/v1',
      env: { KUBECRED_HOME: home.dir },
    });
    app = spawn(process.execPath, ['--import', FAKE_ELECTRON, MAIN], {
      env: { ...brokerEnv(home.dir), FAKE_ELECTRON_LOG: log() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    app.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  });

  afterAll(async () => {
    if (app && app.exitCode === null) {
      const exited = new Promise((resolve) => app.once('exit', resolve));
      app.kill('SIGTERM');
      await exited;
    }
    await home?.cleanup();
  });

  it('reads "not used yet" before any kubectl, not "ready"', async () => {
    await expect
      .poll(menu, { timeout: 20_000, message: `the tray showed no profile menu:\n${output}` })
      .toContain('first: not used yet');
  });

  it('reads "no secret stored" once kubectl found none, in the menu, a notification and status', async () => {
    const failed = await kubectl();
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toContain('kubecred secret set first token');
    await expect.poll(menu, { timeout: 10_000 }).toContain('first: no secret stored');
    const titles = (await calls()).filter((call) => call.event === 'notification').map((call) => call.title);
    expect(titles).toContain('first: no secret stored');
    const status = await cli(['status']);
    expect(status.stdout).toMatch(/^first\s+static\s+no-secret\s/m);
  });

  it('reads "not used yet" once the token is stored, and "ready" once kubectl used it', async () => {
    expect((await cli(['secret', 'set', 'first', 'token'], 'tok-stored-later')).code).toBe(0);
    await expect.poll(menu, { timeout: 10_000 }).toContain('first: not used yet');
    // The credential was served; only the cluster (nobody at port 1) is out of reach.
    const served = await kubectl();
    expect(served.stderr).not.toContain('kubecred');
    await expect.poll(menu, { timeout: 10_000 }).toContain('first: ready');
  });
});
