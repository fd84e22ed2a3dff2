import { copyFile, mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installLayout, layoutShim } from '../../src/main/platform/installLayout.js';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor, V1_EXEC_INFO } from '../support/callers.js';
import { NATIVE_SHIM, REPO_ROOT, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const TARGET = `${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}`;

// Issue 14, packaged paths: one module finds the shim, the CLI and the renderer in the source
// tree, the build and the packaged app, and what it names for kubectl exists outside app.asar.
describe('the three install layouts', () => {
  let home: TempHome;
  let broker: TestBroker;
  const { cli } = callersFor(() => home.dir);

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    await writeConfig(home.dir, 'profiles:\n  - { name: packaged, provider: static }\n');
    broker = await startTestBroker(home.dir);
    expect((await cli(['secret', 'set', 'packaged', 'token'], 'served-to-the-packaged-shim')).code).toBe(0);
  });
  afterAll(async () => {
    await broker?.stop();
    await home?.cleanup();
  });

  it("the source tree and the build both use the checkout's dist/ and bin/kubecred", () => {
    for (const [kind, moduleDir] of [
      ['source', path.join(REPO_ROOT, 'src', 'main', 'platform')],
      ['dist', path.join(REPO_ROOT, 'dist', 'main', 'platform')],
    ] as const) {
      const layout = installLayout({ moduleDir });
      expect(layout.kind).toBe(kind);
      expect(layoutShim(layout, process.platform, process.arch)).toBe(NATIVE_SHIM);
      expect(layout.rendererDir).toBe(path.join(REPO_ROOT, 'dist', 'renderer'));
      expect(layout.cliCommand).toBe(path.join(REPO_ROOT, 'bin', 'kubecred'));
      expect(layout.resourcesDir).toBe(path.join(REPO_ROOT, 'resources'));
    }
  });

  it('the packaged app: shim and CLI launcher outside app.asar, and a kubeconfig naming them works', async () => {
    // The shape electron-builder makes (electron-builder.yml): <app>/kubecred, resources/app.asar,
    // resources/shim/<target>/, resources/bin/kubecred. The app binary here is a stand-in that,
    // like Electron with ELECTRON_RUN_AS_NODE=1, runs a script as plain Node; app.asar is a
    // directory holding the build.
    const appDir = path.join(home.dir, 'Kubecred');
    const resources = path.join(appDir, 'resources');
    await mkdir(path.join(resources, 'app.asar'), { recursive: true });
    for (const part of ['bin', 'dist', 'node_modules', 'package.json'])
      await symlink(path.join(REPO_ROOT, part), path.join(resources, 'app.asar', part));
    await mkdir(path.join(resources, 'shim', TARGET), { recursive: true });
    await copyFile(NATIVE_SHIM, path.join(resources, 'shim', TARGET, path.basename(NATIVE_SHIM)));
    await mkdir(path.join(resources, 'bin'));
    await copyFile(path.join(REPO_ROOT, 'packaging', 'bin', 'kubecred'), path.join(resources, 'bin', 'kubecred'));
    await writeFile(
      path.join(appDir, 'kubecred'),
      `#!/bin/sh\n[ "$ELECTRON_RUN_AS_NODE" = 1 ] || { echo "not in Node mode" >&2; exit 99; }\nexec "${process.execPath}" "$@"\n`,
      { mode: 0o755 },
    );
    await run('chmod', [
      '+x',
      path.join(resources, 'bin', 'kubecred'),
      path.join(resources, 'shim', TARGET, path.basename(NATIVE_SHIM)),
    ]);

    const layout = installLayout({
      moduleDir: path.join(resources, 'app.asar', 'dist', 'main', 'platform'),
      resourcesPath: resources,
    });
    expect(layout.kind).toBe('packaged');
    const shim = layoutShim(layout, process.platform, process.arch)!;
    expect(shim).toBe(path.join(resources, 'shim', TARGET, path.basename(NATIVE_SHIM)));
    expect(shim.split(path.sep)).not.toContain('app.asar');
    expect(layout.cliCommand.split(path.sep)).not.toContain('app.asar');
    expect(layout.rendererDir).toBe(path.join(resources, 'app.asar', 'dist', 'renderer'));
    expect(layout.resourcesDir).toBe(path.join(resources, 'resources'));

    // What install/import write into a kubeconfig runs, from outside the asar, and answers.
    const env = {
      KUBECRED_HOME: home.dir,
      HOME: home.dir,
      PATH: process.env.PATH ?? '',
      KUBERNETES_EXEC_INFO: V1_EXEC_INFO,
    };
    const served = await run(shim, ['credential', 'packaged'], { env });
    expect(served.code, served.stderr).toBe(0);
    expect(JSON.parse(served.stdout).status.token).toBe('served-to-the-packaged-shim');
    // The CLI launcher runs the app binary in Node mode with the CLI from app.asar.
    const viaLauncher = await run(layout.cliCommand, ['credential', 'packaged'], { env });
    expect(viaLauncher.code, viaLauncher.stderr).toBe(0);
    expect(JSON.parse(viaLauncher.stdout).status.token).toBe('served-to-the-packaged-shim');
  });
});
