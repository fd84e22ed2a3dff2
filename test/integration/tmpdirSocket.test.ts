import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { access, chmod, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfig } from '../support/broker.js';
import { V1_EXEC_INFO } from '../support/callers.js';
import { KUBECRED_CLI, NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;

// B5 of the security review: a home whose socket path is too long for a Unix socket falls
// back to <TMPDIR>/kubecred-<uid>/<hash>.sock. Another user who made that directory first and
// listens there must get nothing: not a secret, not a request, not a "broker already running".
describe.runIf(isRoot)('the shared-tmpdir socket, when another user got there first', () => {
  let home: TempHome;
  let kubecredHome: string;
  let tmp: string;
  let bodies: string;
  let squatter: ChildProcess;
  const env = () => ({ ...(process.env as Record<string, string>), KUBECRED_HOME: kubecredHome, TMPDIR: tmp });

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    kubecredHome = path.join(home.dir, 'h'.repeat(60), 'o'.repeat(40));
    await mkdir(kubecredHome, { recursive: true });
    await writeConfig(kubecredHome, 'profiles:\n  - { name: tmpdir-demo, provider: static }\n');
    tmp = path.join(home.dir, 'tmp');
    await mkdir(tmp);
    await chmod(home.dir, 0o755);
    await chmod(tmp, 0o1777);
    const uid = process.getuid!();
    const dir = path.join(tmp, `kubecred-${uid}`);
    const socket = path.join(dir, `${createHash('sha256').update(kubecredHome).digest('hex').slice(0, 16)}.sock`);
    bodies = path.join(tmp, 'squatter-heard.txt');
    // As `nobody`: make the directory first, world-writable, and listen where the broker would.
    const script = `const fs = require('fs'), net = require('net'); fs.mkdirSync(${JSON.stringify(dir)}, { mode: 0o777 }); fs.chmodSync(${JSON.stringify(dir)}, 0o777);
      net.createServer((c) => c.on('data', (d) => { fs.appendFileSync(${JSON.stringify(bodies)}, d); c.end('HTTP/1.1 200 OK\\r\\ncontent-length: 2\\r\\n\\r\\n{}'); })).listen(${JSON.stringify(socket)}, () => fs.writeFileSync(${JSON.stringify(bodies)}, ''));`;
    squatter = spawn(
      'setpriv',
      [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--', process.execPath, '-e', script],
      { stdio: 'ignore' },
    );
    const deadline = Date.now() + 10_000;
    while (
      Date.now() < deadline &&
      !(await access(bodies).then(
        () => true,
        () => false,
      ))
    )
      await new Promise((r) => setTimeout(r, 100));
  }, 60_000);

  afterAll(async () => {
    squatter?.kill();
    await home?.cleanup();
  });

  it('the broker refuses to start there, says why, and leaves no client secret', async () => {
    const started = await run(process.execPath, [KUBECRED_CLI, 'daemon'], { env: env(), timeoutMs: 20_000 });
    expect(started.code).not.toBe(0);
    expect(started.stderr).toMatch(/belongs to uid 65534, not to you/);
    expect(started.stderr).not.toMatch(/already running/);
    await expect(access(path.join(kubecredHome, 'run', 'client-secret'))).rejects.toThrow();
  });

  it('neither the Node CLI nor the native shim sends the squatter a secret or a request', async () => {
    // A client secret as a broker of ours would have written it, so the clients go as far as connecting.
    await mkdir(path.join(kubecredHome, 'run'), { recursive: true, mode: 0o700 });
    const { writeFile } = await import('node:fs/promises');
    await writeFile(path.join(kubecredHome, 'run', 'client-secret'), 'f'.repeat(64), { mode: 0o600 });
    const stored = await run(process.execPath, [KUBECRED_CLI, 'secret', 'set', 'tmpdir-demo', 'token'], {
      env: env(),
      input: 'planted-tmpdir-token-31f',
    });
    expect(stored.code).not.toBe(0);
    expect(stored.stderr).toMatch(/refusing to use the socket directory/);
    const unlocked = await run(process.execPath, [KUBECRED_CLI, 'unlock'], { env: env(), input: 'my-file-passphrase' });
    expect(unlocked.code).not.toBe(0);
    const shim = await run(NATIVE_SHIM, ['credential', 'tmpdir-demo'], {
      env: { ...env(), KUBERNETES_EXEC_INFO: V1_EXEC_INFO },
    });
    expect(shim.code).not.toBe(0);
    expect(shim.stdout).toBe('');
    expect(await readFile(bodies, 'utf8')).toBe('');
  });
});
