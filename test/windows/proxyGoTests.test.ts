import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';
import { WineRunner, windowsPath, wineWorld, type WineWorld } from '../support/wine.js';

/**
 * kubecred-proxy's own tests, built for Windows and run there (under Wine): the listener, the
 * guard, credential mode and the control channel as Windows runs them, and the Windows half of
 * naming a confirm's program (GetExtendedTcpTable), which Linux never compiles.
 */
describe('Windows, under Wine: kubecred-proxy’s Go tests', () => {
  let world: WineWorld;
  let home: TempHome;
  let wine: WineRunner;
  let binary: string;

  beforeAll(async () => {
    world = wineWorld();
    home = await makeTempHome();
    wine = new WineRunner(world, home.dir, {});
    binary = path.join(home.dir, 'proxy.test.exe');
    const built = spawnSync('go', ['test', '-c', '-o', binary, './proxy'], {
      cwd: path.join(REPO_ROOT, 'src', 'shim'),
      env: { ...process.env, GOOS: 'windows', GOARCH: 'amd64', CGO_ENABLED: '0' },
      encoding: 'utf8',
    });
    if (built.status !== 0) throw new Error(`go test -c for Windows failed: ${built.stderr}`);
  }, 600_000);

  afterAll(async () => {
    if (world) WineRunner.stopAll(world);
    await home?.cleanup();
  });

  it('every test of the proxy passes on Windows, naming a peer’s process among them', async () => {
    // In the package's folder, as go test runs them: testdata/ and the shared fixtures are found there.
    const ran = await wine.run(windowsPath(binary), ['-test.v', '-test.count=1'], {
      timeoutMs: 170_000,
      cwd: path.join(REPO_ROOT, 'src', 'shim', 'proxy'),
    });
    const results = [...ran.stdout.matchAll(/^--- (PASS|FAIL|SKIP): (\S+)/gm)].map(([, verdict, name]) => ({
      verdict,
      name,
    }));
    const failed = results.filter((r) => r.verdict === 'FAIL').map((r) => r.name);
    expect(failed, ran.stdout.slice(-4000)).toEqual([]);
    expect(ran.code, ran.stdout.slice(-4000) + ran.stderr).toBe(0);
    expect(results.find((r) => r.name === 'TestPeerPIDNamesTheProcessOnTheOtherEnd')?.verdict).toBe('PASS');
    expect(results.filter((r) => r.verdict === 'PASS').length).toBeGreaterThan(50);
  });
});
