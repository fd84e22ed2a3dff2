import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';
import { WineRunner, windowsPath, wineWorld, type WineWorld } from '../support/wine.js';

// Electron review 2, F6: packaging/bin/kubecred.cmd set ELECTRON_RUN_AS_NODE=1 in the console
// that ran it, so an Electron app started from that console afterwards ran as bare Node. Here
// the launchers run in Wine's cmd as a person's console runs them, laid out as in the package
// (resources\bin beside resources\app.asar, the app's exe two levels up), with node.exe as the
// app's exe and a stand-in CLI that reports what it got.
describe('Windows, under Wine: the packaged CLI launchers', () => {
  let world: WineWorld;
  let home: TempHome;
  let wine: WineRunner;

  beforeAll(async () => {
    world = wineWorld();
    home = await makeTempHome();
    wine = new WineRunner(world, home.dir, {});
    const app = path.join(home.dir, 'Kubecred');
    await mkdir(path.join(app, 'resources', 'bin'), { recursive: true });
    await mkdir(path.join(app, 'resources', 'app.asar', 'bin'), { recursive: true });
    await link(world.nodeExe, path.join(app, 'Kubecred.exe'));
    for (const launcher of ['kubecred.cmd', 'docker-credential-kubecred.cmd'])
      await writeFile(
        path.join(app, 'resources', 'bin', launcher),
        await readFile(path.join(REPO_ROOT, 'packaging', 'bin', launcher)),
      );
    // The stand-in CLI writes down what it was run as (a file: what node.exe prints under
    // Wine's cmd can be lost when it exits).
    await writeFile(
      path.join(app, 'resources', 'app.asar', 'bin', 'kubecred'),
      `require('node:fs').writeFileSync(${JSON.stringify(windowsPath(path.join(home.dir, 'cli.json')))}, JSON.stringify({ runAsNode: process.env.ELECTRON_RUN_AS_NODE ?? null, args: process.argv.slice(2) }));\n`,
    );
    // A person's console: run the launcher, then look at its own environment.
    await writeFile(
      path.join(home.dir, 'console.cmd'),
      [
        '@echo off',
        `call "${windowsPath(path.join(app, 'resources', 'bin'))}\\%1" get one`,
        'echo after=[%ELECTRON_RUN_AS_NODE%]',
        '',
      ].join('\r\n'),
    );
  }, 600_000);

  afterAll(async () => {
    if (world) WineRunner.stopAll(world);
    await home?.cleanup();
  });

  for (const launcher of ['kubecred.cmd', 'docker-credential-kubecred.cmd']) {
    // (Wine 8's cmd reports errorlevel 1 after any program a batch file ran, so the exit code
    // that `exit /b` passes on is left to Windows runners.)
    it(`${launcher} runs the CLI as Node and leaves the console as it was`, async () => {
      await rm(path.join(home.dir, 'cli.json'), { force: true });
      const ran = await wine.run('cmd', ['/c', windowsPath(path.join(home.dir, 'console.cmd')), launcher]);
      const lines = ran.stdout.split(/\r?\n/).filter(Boolean);
      const said = await readFile(path.join(home.dir, 'cli.json'), 'utf8').catch(
        () => `no cli.json; cmd said: ${ran.stdout} ${ran.stderr}`,
      );
      const cli = JSON.parse(said) as {
        runAsNode: string | null;
        args: string[];
      };
      expect(cli.runAsNode).toBe('1');
      expect(cli.args).toEqual(
        launcher === 'kubecred.cmd' ? ['get', 'one'] : ['registry', 'docker-credential', 'get', 'one'],
      );
      expect(lines).toContain('after=[]');
    });
  }
});
