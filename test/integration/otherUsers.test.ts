import { chmod, copyFile, readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { V1_EXEC_INFO, callersFor } from '../support/callers.js';
import { NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { run, type RunResult } from '../support/run.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const PLANTED_TOKEN = 'planted-other-user-token-7e19c4a0';
const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;

/** Runs a command as the unprivileged `nobody`, the way another account on the workstation would. */
function asNobody(command: string, args: string[], env: Record<string, string> = {}): Promise<RunResult> {
  return run('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--', command, ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    timeoutMs: 30_000,
  });
}

// Switching users needs root; the CI machine runs as root, as this one does.
describe.runIf(isRoot)('another OS user on the same machine', () => {
  let home: TempHome;
  let broker: TestBroker;
  let shimForAll: string;
  const callers = callersFor(() => home.dir);

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    await writeConfig(home.dir, 'profiles:\n  - name: planted\n    provider: static\n');
    broker = await startTestBroker(home.dir);
    const stored = await callers.cli(['secret', 'set', 'planted', 'token'], PLANTED_TOKEN);
    expect(stored.code, stored.stderr).toBe(0);
    expect((await callers.credential('planted')).stdout).toContain(PLANTED_TOKEN);
    // The worst case a user can make: the whole Kubecred home readable and searchable by everyone.
    await chmod(home.dir, 0o755);
    await chmod(path.join(home.dir, 'config.yaml'), 0o644);
    shimForAll = path.join(home.dir, 'kubecred-shim');
    await copyFile(NATIVE_SHIM, shimForAll);
    await chmod(shimForAll, 0o755);
  });

  afterAll(async () => {
    await broker?.stop();
    await home?.cleanup();
  });

  it('cannot list or enter the run dir, nor read the client secret', async () => {
    expect((await stat(path.join(home.dir, 'run'))).mode & 0o777).toBe(0o700);
    const list = await asNobody('ls', [path.join(home.dir, 'run')]);
    expect(list.code).not.toBe(0);
    expect(list.stderr).toMatch(/Permission denied/);
    const secret = await asNobody('cat', [path.join(home.dir, 'run', 'client-secret')]);
    expect(secret.code).not.toBe(0);
    expect(secret.stdout).toBe('');
  });

  it('cannot connect to the socket, and the shim gives it no credential', async () => {
    const connect = await asNobody(process.execPath, [
      '-e',
      `require('net').connect(${JSON.stringify(broker.socket)}).on('connect',()=>{console.log('connected');process.exit(0)}).on('error',(e)=>{console.error(e.code);process.exit(3)})`,
    ]);
    expect(connect.stdout).not.toContain('connected');
    expect(connect.stderr).toContain('EACCES');
    const shim = await asNobody(shimForAll, ['credential', 'planted'], {
      KUBECRED_HOME: home.dir,
      KUBERNETES_EXEC_INFO: V1_EXEC_INFO,
      KUBECRED_CLI: '/nonexistent',
    });
    expect(shim.code).not.toBe(0);
    expect(shim.stdout).toBe('');
    expect(shim.stderr).not.toContain(PLANTED_TOKEN);
    expect(shim.stderr).toMatch(/^kubecred: .*permission denied/i);
  });

  it('still cannot connect or read the secret when the run dir itself is opened up by mistake', async () => {
    const runDir = path.join(home.dir, 'run');
    await chmod(runDir, 0o755);
    try {
      const connect = await asNobody(process.execPath, [
        '-e',
        `require('net').connect(${JSON.stringify(broker.socket)}).on('connect',()=>process.exit(0)).on('error',(e)=>{console.error(e.code);process.exit(3)})`,
      ]);
      expect(connect.code).toBe(3);
      expect(connect.stderr).toContain('EACCES');
      const secret = await asNobody('cat', [path.join(runDir, 'client-secret')]);
      expect(secret.code).not.toBe(0);
    } finally {
      await chmod(runDir, 0o700);
    }
  });

  it("cannot reach the Secret Service on the user's session bus", async () => {
    const address = process.env.DBUS_SESSION_BUS_ADDRESS;
    expect(address, 'run inside .ci/keyring-session.sh').toBeTruthy();
    const probe = await asNobody(
      'dbus-send',
      [
        '--session',
        '--print-reply',
        '--dest=org.freedesktop.secrets',
        '/org/freedesktop/secrets',
        'org.freedesktop.DBus.Peer.Ping',
      ],
      { DBUS_SESSION_BUS_ADDRESS: address! },
    );
    expect(probe.code).not.toBe(0);
    expect(probe.stderr).toMatch(/Permission denied|AuthFailed|rejected/i);
  });

  it("finds the planted token in no file it can read, no argv, and cannot read the broker's environment", async () => {
    const grep = await asNobody('grep', ['-r', '-l', '-a', PLANTED_TOKEN, home.dir]);
    expect(grep.stdout).toBe('');
    const environ = await asNobody('cat', [`/proc/${broker.process.pid}/environ`]);
    expect(environ.code).not.toBe(0);
    expect(environ.stdout).toBe('');
    const argvHits: string[] = [];
    for (const pid of (await readdir('/proc')).filter((entry) => /^\d+$/.test(entry))) {
      const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
      if (cmdline.includes(PLANTED_TOKEN)) argvHits.push(pid);
    }
    expect(argvHits).toEqual([]);
    // The owner's own environment of the broker carries no secret either.
    const ownEnviron = await readFile(`/proc/${broker.process.pid}/environ`, 'utf8');
    expect(ownEnviron).not.toContain(PLANTED_TOKEN);
    expect(Object.values(brokerEnv(home.dir)).join('\n')).not.toContain(PLANTED_TOKEN);
  });
});
