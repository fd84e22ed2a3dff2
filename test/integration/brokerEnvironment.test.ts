import { mkdir, readFile, readlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, daemonsOf, writeConfig } from '../support/broker.js';
import { V1_EXEC_INFO } from '../support/callers.js';
import { NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const SHELL_SECRET = 'planted-shell-secret-5b0e71';

// B4 of the security review: the broker that the first kubectl starts must not carry that
// shell's environment and directory into every wrapped plugin, for every later caller.
describe('a broker started by the first kubectl serves every shell alike', () => {
  let home: TempHome;
  let probe: string;
  let firstShellDir: string;
  let firstShellPath: string;

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    probe = path.join(home.dir, 'plugin-saw.txt');
    firstShellDir = path.join(home.dir, 'a-fresh-clone');
    await mkdir(firstShellDir);
    // A plugin named by a bare name resolves on PATH, never in the caller's directory.
    await writeFile(path.join(firstShellDir, 'relplugin.sh'), '#!/bin/sh\necho pwned >&2\n', { mode: 0o755 });
    const plugin = path.join(home.dir, 'probe-plugin.sh');
    await writeFile(
      plugin,
      `#!/bin/sh\nenv > "$OUT"\npwd >> "$OUT"\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"probe"}}'\n`,
      { mode: 0o755 },
    );
    // Security review 3, C7: a bare plugin command, as import writes it. The first shell works
    // in a cloned repository whose bin/ (direnv's PATH_add) holds a program of that name; the
    // user's own one is in a directory of their PATH outside it.
    const ownBin = path.join(home.dir, 'tools-bin');
    await mkdir(ownBin);
    await mkdir(path.join(firstShellDir, 'bin'));
    const fakeaws = (token: string) =>
      `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"${token}"}}'\n`;
    await writeFile(path.join(ownBin, 'fakeaws'), fakeaws('from-the-users-own-tools'), { mode: 0o755 });
    await writeFile(path.join(firstShellDir, 'bin', 'fakeaws'), fakeaws('from-the-cloned-repo'), { mode: 0o755 });
    // Security review 4, D10: the first kubectl runs from a subdirectory of that repository
    // (direnv keeps its bin/ on PATH there), not from its top.
    await mkdir(path.join(firstShellDir, '.git'));
    await mkdir(path.join(firstShellDir, 'sub', 'deeper'), { recursive: true });
    await writeConfig(
      home.dir,
      `profiles:\n  - name: probe\n    provider: exec\n    command: ${plugin}\n    env: { OUT: ${probe} }\n  - { name: bare, provider: exec, command: fakeaws }\n`,
    );
    firstShellPath = `${path.join(firstShellDir, 'bin')}:${ownBin}:${process.env.PATH}`;
    const first = await run(NATIVE_SHIM, ['credential', 'probe'], {
      env: {
        ...brokerEnv(home.dir),
        KUBERNETES_EXEC_INFO: V1_EXEC_INFO,
        AWS_PROFILE: 'first-callers-account',
        SHELL_SECRET,
        KUBECONFIG: '/first/callers/kubeconfig',
        PATH: firstShellPath,
      },
      cwd: path.join(firstShellDir, 'sub', 'deeper'),
    });
    expect(first.code, first.stderr).toBe(0);
  }, 60_000);

  afterAll(async () => {
    for (const pid of await daemonsOf(home.dir)) process.kill(pid, 'SIGTERM');
    await home?.cleanup();
  });

  it("the wrapped plugin sees its profile env and the session, not the first shell's variables", async () => {
    const saw = await readFile(probe, 'utf8');
    expect(saw).toContain(`OUT=${probe}`);
    expect(saw).toMatch(/^PATH=/m);
    expect(saw).not.toContain('AWS_PROFILE');
    expect(saw).not.toContain(SHELL_SECRET);
    expect(saw).not.toContain('/first/callers/kubeconfig');
    // It runs in the user's home directory, not in the first caller's.
    expect(saw.trim().split('\n').pop()).toBe(os.homedir());
  });

  it("a bare plugin command resolves on the user's PATH, never in the first shell's project (the broker keeps no project directory on its PATH)", async () => {
    const fromProject = await run(NATIVE_SHIM, ['credential', 'bare'], {
      env: { ...brokerEnv(home.dir), KUBERNETES_EXEC_INFO: V1_EXEC_INFO, PATH: firstShellPath },
      cwd: firstShellDir,
    });
    expect(fromProject.code, fromProject.stderr).toBe(0);
    expect(JSON.parse(fromProject.stdout).status.token).toBe('from-the-users-own-tools');
    const [pid] = await daemonsOf(home.dir);
    expect(await readFile(`/proc/${pid}/environ`, 'utf8')).not.toContain(path.join(firstShellDir, 'bin'));
  });

  it('the broker keeps neither that environment nor that directory', async () => {
    const [pid] = await daemonsOf(home.dir);
    expect(pid).toBeDefined();
    const environ = await readFile(`/proc/${pid}/environ`, 'utf8');
    expect(environ).not.toContain('AWS_PROFILE');
    expect(environ).not.toContain(SHELL_SECRET);
    expect(environ).not.toContain('KUBERNETES_EXEC_INFO');
    expect(await readlink(`/proc/${pid}/cwd`)).toBe(home.dir);
  });
});
