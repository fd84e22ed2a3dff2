import { copyFile, link, mkdir, readlink, realpath, symlink, writeFile } from 'node:fs/promises';
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
    const { resources } = await packagedApp(path.join(home.dir, 'Kubecred'));

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

  // Issue 29, item 5 (N12): the deb links both launchers into /usr/bin. Run through such links,
  // they find the app from where they really are; docker runs its helper by name from PATH.
  it('the CLI and the docker credential helper work through links on PATH', async () => {
    const { resources } = await packagedApp(path.join(home.dir, 'Linked'));
    const usrBin = path.join(home.dir, 'usr-bin');
    await mkdir(usrBin, { recursive: true });
    for (const name of ['kubecred', 'docker-credential-kubecred'])
      await symlink(path.join(resources, 'bin', name), path.join(usrBin, name));
    const env = {
      KUBECRED_HOME: home.dir,
      HOME: home.dir,
      PATH: `${usrBin}:${process.env.PATH ?? ''}`,
      KUBERNETES_EXEC_INFO: V1_EXEC_INFO,
    };
    const served = await run('kubecred', ['credential', 'packaged'], { env });
    expect(served.code, served.stderr).toBe(0);
    expect(JSON.parse(served.stdout).status.token).toBe('served-to-the-packaged-shim');
    const listed = await run('docker-credential-kubecred', ['list'], { env });
    expect(listed.code, listed.stdout + listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual({});
  });

  // Issue 34, E2 and E3: with the app not running (before its first launch, after Quit), the
  // packaged shim finds the launcher in resources/bin, and the daemon it starts runs on the
  // app's binary in Node mode: without ELECTRON_RUN_AS_NODE that binary opens the tray app.
  it('with no broker running, kubectl through the packaged shim starts the daemon in Node mode and gets its credential', async () => {
    const quiet = await makeTempHome();
    try {
      const plugin = path.join(quiet.dir, 'plugin.sh');
      await writeFile(
        plugin,
        `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"from-the-packaged-daemon"}}'\n`,
        { mode: 0o755 },
      );
      await writeConfig(quiet.dir, `profiles:\n  - { name: wrapped, provider: exec, command: ${plugin} }\n`);
      const { resources, appBinary } = await packagedApp(path.join(quiet.dir, 'Kubecred'));
      const shim = path.join(resources, 'shim', TARGET, path.basename(NATIVE_SHIM));
      const env = {
        KUBECRED_HOME: quiet.dir,
        HOME: quiet.dir,
        PATH: process.env.PATH ?? '',
        KUBERNETES_EXEC_INFO: V1_EXEC_INFO,
      };
      try {
        const served = await run(shim, ['credential', 'wrapped'], { env });
        expect(served.code, served.stderr).toBe(0);
        expect(JSON.parse(served.stdout).status.token).toBe('from-the-packaged-daemon');
        const status = await run(path.join(resources, 'bin', 'kubecred'), ['status', '-o', 'json'], { env });
        const pid = (JSON.parse(status.stdout) as { pid: number }).pid;
        // The daemon is the app's binary, in Node mode.
        expect(await readlink(`/proc/${pid}/exe`)).toBe(appBinary);
      } finally {
        await run(path.join(resources, 'bin', 'kubecred'), ['stop'], { env });
      }
    } finally {
      await quiet.cleanup();
    }
  });
});

/**
 * The shape electron-builder makes (electron-builder.yml): <app>/kubecred, resources/app.asar,
 * resources/shim/<target>/, resources/bin/kubecred. app.asar is a directory holding the build.
 * The app binary behaves as Electron's does: it is Node's own binary under the app's name (so
 * process.execPath is the app, as under Electron), and the CLI in app.asar refuses to run
 * unless ELECTRON_RUN_AS_NODE=1, where Electron would open the tray app instead.
 */
async function packagedApp(appDir: string): Promise<{ resources: string; appBinary: string }> {
  const resources = path.join(appDir, 'resources');
  const asar = path.join(resources, 'app.asar');
  await mkdir(path.join(asar, 'bin'), { recursive: true });
  for (const part of ['dist', 'node_modules', 'package.json'])
    await symlink(path.join(REPO_ROOT, part), path.join(asar, part));
  await writeFile(
    path.join(asar, 'bin', 'kubecred'),
    `if (process.env.ELECTRON_RUN_AS_NODE !== '1') {\n  process.stderr.write('the app binary was started without ELECTRON_RUN_AS_NODE: it opened the tray app\\n');\n  process.exit(99);\n}\nconst { main } = await import(new URL('../dist/main/cli/main.js', import.meta.url).href);\nawait main();\n`,
  );
  await mkdir(path.join(resources, 'shim', TARGET), { recursive: true });
  await copyFile(NATIVE_SHIM, path.join(resources, 'shim', TARGET, path.basename(NATIVE_SHIM)));
  await mkdir(path.join(resources, 'bin'));
  for (const launcher of ['kubecred', 'docker-credential-kubecred'])
    await copyFile(path.join(REPO_ROOT, 'packaging', 'bin', launcher), path.join(resources, 'bin', launcher));
  const appBinary = path.join(appDir, 'kubecred');
  // A hard link where it can be (same file system), else a copy: either way its own path.
  await link(await realpath(process.execPath), appBinary).catch(() => copyFile(process.execPath, appBinary));
  await run('chmod', [
    '+x',
    appBinary,
    path.join(resources, 'bin', 'kubecred'),
    path.join(resources, 'bin', 'docker-credential-kubecred'),
    path.join(resources, 'shim', TARGET, path.basename(NATIVE_SHIM)),
  ]);
  return { resources, appBinary };
}
