import { readFile, stat, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, startWrappedBroker, writeConfig, brokerEnv, type TestBroker } from '../support/broker.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';
import { KUBECRED_CLI, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { rawExchange } from '../support/rawSocket.js';

const V1_INFO = JSON.stringify({
  apiVersion: 'client.authentication.k8s.io/v1',
  kind: 'ExecCredential',
  spec: { interactive: false },
});

describe('broker API against bad input', () => {
  let home: TempHome;
  let broker: TestBroker;
  let secret: string;

  async function credential(args: string[], execInfo: string | null = V1_INFO) {
    const env = brokerEnv(home.dir);
    if (execInfo === null) delete env.KUBERNETES_EXEC_INFO;
    else env.KUBERNETES_EXEC_INFO = execInfo;
    return run(process.execPath, [KUBECRED_CLI, 'credential', ...args], { env });
  }

  beforeAll(async () => {
    assertBuilt();
    home = await makeTempHome();
    ({ broker, secret } = await startWrappedBroker(home.dir, 'wrapped-token'));
  });

  afterAll(async () => {
    await broker?.stop();
    await home?.cleanup();
  });

  async function stillServes(): Promise<void> {
    const ok = await credential(['wrapped']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).status.token).toBe('wrapped-token');
  }

  it('keeps its run dir 0700 and its socket and secret 0600', async () => {
    expect((await stat(path.join(home.dir, 'run'))).mode & 0o777).toBe(0o700);
    expect((await stat(broker.socket)).mode & 0o777).toBe(0o600);
    expect((await stat(path.join(home.dir, 'run', 'client-secret'))).mode & 0o777).toBe(0o600);
  });

  it.each([
    ['missing', null, 'KUBERNETES_EXEC_INFO is not set'],
    ['junk', '{{{', 'KUBERNETES_EXEC_INFO is not valid JSON'],
    [
      'an unknown apiVersion',
      JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v9', kind: 'ExecCredential', spec: {} }),
      'does not speak',
    ],
  ])('explains %s KUBERNETES_EXEC_INFO on one line, prints nothing on stdout', async (_name, info, expected) => {
    const result = await credential(['wrapped'], info);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(expected);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    await stillServes();
  });

  it('names the known profiles when asked for an unknown one', async () => {
    const result = await credential(['nope']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no profile "nope" in .*config\.yaml \(profiles: wrapped\)/);
  });

  it('refuses a request without the client secret', async () => {
    const answer = await rawExchange(broker.socket, 'GET /v1/status HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 401/);
    expect(answer).toContain('client secret');
    expect(answer).not.toContain(secret);
  });

  it.each([
    ['random bytes', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256))],
    ['a truncated request line', 'POST /v1/cred'],
    ['a header flood', `GET /v1/status HTTP/1.1\r\nX-Junk: ${'a'.repeat(64 * 1024)}\r\n\r\n`],
  ])('answers %s with an error or a close, and keeps serving', async (_name, payload) => {
    const answer = await rawExchange(broker.socket, payload);
    expect(answer === '' || /^HTTP\/1\.1 4\d\d/.test(answer)).toBe(true);
    await stillServes();
  });

  it.each([
    ['an unknown path', 'GET', '/v1/nothing', undefined, 404, 'no such API'],
    ['a wrong method', 'GET', '/v1/credential', undefined, 400, 'does not take GET'],
    ['a body that is not JSON', 'POST', '/v1/credential', 'not json', 400, 'not valid JSON'],
    ['a body of the wrong shape', 'POST', '/v1/credential', JSON.stringify({ argv: 'credential' }), 400, 'argv'],
    [
      'an oversized body',
      'POST',
      '/v1/credential',
      JSON.stringify({ argv: ['x'.repeat(200 * 1024)] }),
      413,
      'larger than 64 KiB',
    ],
    ['deeply nested JSON', 'POST', '/v1/credential', '['.repeat(5000) + ']'.repeat(5000), 400, 'expected object'],
  ])('answers %s with a JSON error', async (_name, method, route, body, status, expected) => {
    const request = `${method} ${route} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\nAccept: application/json\r\nContent-Length: ${Buffer.byteLength(body ?? '')}\r\nConnection: close\r\n\r\n${body ?? ''}`;
    const answer = await rawExchange(broker.socket, request);
    expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status}`));
    const json = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as {
      error: { message: string; hint?: string };
    };
    expect(json.error.message).toContain(expected);
    expect(json.error.hint).toBeTruthy();
    await stillServes();
  });

  it('drops a slow sender that never finishes its request, and keeps serving', async () => {
    const started = Date.now();
    const answer = await rawExchange(
      broker.socket,
      `POST /v1/credential HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\nContent-Length: 100\r\n\r\n{`,
      { endAfterWrite: false, timeoutMs: 40_000 },
    );
    expect(Date.now() - started).toBeLessThan(39_000);
    expect(answer === '' || /^HTTP\/1\.1 (408|400)/.test(answer), answer).toBe(true);
    await stillServes();
  }, 60_000);

  it('keeps the last good config when config.yaml turns to garbage, and says so', async () => {
    const good = await readFile(path.join(home.dir, 'config.yaml'), 'utf8');
    await writeConfig(home.dir, 'profiles:\n  - name: wrapped\n    provider: [broken\n');
    await stillServes();
    const status = await run(process.execPath, [KUBECRED_CLI, 'status', '-o', 'json'], { env: brokerEnv(home.dir) });
    expect(JSON.parse(status.stdout).configError).toMatch(/config\.yaml line \d+: not valid YAML/);
    await writeConfig(home.dir, good);
    const fixed = await run(process.execPath, [KUBECRED_CLI, 'status', '-o', 'json'], { env: brokerEnv(home.dir) });
    expect(JSON.parse(fixed.stdout).configError).toBeNull();
  });

  it('reports a status with the socket and each profile', async () => {
    const status = await run(process.execPath, [KUBECRED_CLI, 'status', '-o', 'json'], { env: brokerEnv(home.dir) });
    expect(status.code).toBe(0);
    const json = JSON.parse(status.stdout);
    expect(json).toMatchObject({ running: true, socket: broker.socket, pid: broker.process.pid });
    expect(json.profiles).toEqual([expect.objectContaining({ name: 'wrapped', provider: 'exec', state: 'ready' })]);
    // A plugin keeps its own secrets: no store is named for it.
    expect(json.profiles[0]).not.toHaveProperty('secretStore');
    const text = await run(process.execPath, [KUBECRED_CLI, 'profile', 'list'], { env: brokerEnv(home.dir) });
    expect(text.stdout).toMatch(/wrapped\s+exec\s+ready\s+-\s+\d+ min/);
  });

  it('lets only one broker run per home', async () => {
    const second = await run(process.execPath, [KUBECRED_CLI, 'daemon'], {
      env: brokerEnv(home.dir),
      timeoutMs: 10_000,
    });
    expect(second.code).toBe(3);
    expect(second.stderr).toContain('already running');
    await stillServes();
  });
});

describe('broker lifecycle', () => {
  it('cleans up after a crash: a stale socket and lock do not stop the next start', async () => {
    assertBuilt();
    const home = await makeTempHome();
    try {
      await writeConfig(home.dir, 'profiles: []\n');
      const first = await startTestBroker(home.dir);
      await first.stop('SIGKILL');
      const second = await startTestBroker(home.dir);
      const status = await run(process.execPath, [KUBECRED_CLI, 'status', '-o', 'json'], { env: brokerEnv(home.dir) });
      expect(JSON.parse(status.stdout).pid).toBe(second.process.pid);
      expect(await second.stop('SIGTERM')).toBe(0);
      const after = await run(process.execPath, [KUBECRED_CLI, 'status', '-o', 'json'], { env: brokerEnv(home.dir) });
      expect(JSON.parse(after.stdout).running).toBe(false);
    } finally {
      await home.cleanup();
    }
  });

  it.each([
    ['a fresh home', false],
    ['the stale lock of a killed broker', true],
  ])('ten brokers started at once in %s: one serves, nine say one is running', async (_name, staleLock) => {
    const home = await makeTempHome();
    try {
      await writeConfig(home.dir, 'profiles: []\n');
      const { spawn, spawnSync } = await import('node:child_process');
      if (staleLock) {
        // What SIGKILL leaves: the lock names a pid that is gone, the old secret stays.
        const gone = spawnSync('true').pid;
        await mkdir(path.join(home.dir, 'run'), { recursive: true, mode: 0o700 });
        await writeFile(path.join(home.dir, 'run', 'broker.lock'), `${gone}\n`, { mode: 0o600 });
        await writeFile(path.join(home.dir, 'run', 'client-secret'), 'stale-secret\n', { mode: 0o600 });
      }
      const children = Array.from({ length: 10 }, () =>
        spawn(process.execPath, [KUBECRED_CLI, 'daemon'], { env: brokerEnv(home.dir), stdio: 'ignore' }),
      );
      const exits = await Promise.all(
        children.map(
          (child) =>
            new Promise<number | null>((resolve) => {
              const timer = setTimeout(() => resolve(null), 8_000);
              child.once('exit', (code) => {
                clearTimeout(timer);
                resolve(code);
              });
            }),
        ),
      );
      expect(exits.filter((code) => code === 3)).toHaveLength(9);
      expect(exits.filter((code) => code === null)).toHaveLength(1);
      const status = await run(process.execPath, [KUBECRED_CLI, 'status', '-o', 'json'], { env: brokerEnv(home.dir) });
      const survivor = children[exits.indexOf(null)];
      expect(JSON.parse(status.stdout).pid).toBe(survivor?.pid);
      survivor?.kill('SIGTERM');
    } finally {
      await home.cleanup();
    }
  });

  it('starts even with a broken config.yaml, and explains it on every request', async () => {
    const home = await makeTempHome();
    try {
      await mkdir(home.dir, { recursive: true });
      await writeConfig(home.dir, 'profiles:\n  - name: demo\n    provider: magic\n');
      const broker = await startTestBroker(home.dir);
      const env = { ...brokerEnv(home.dir), KUBERNETES_EXEC_INFO: V1_INFO };
      const result = await run(process.execPath, [KUBECRED_CLI, 'credential', 'demo'], { env });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/config\.yaml line 3, profiles\[0\]\.provider/);
      expect(await readFile(path.join(home.dir, 'config.yaml'), 'utf8')).toContain('magic');
      await broker.stop();
    } finally {
      await home.cleanup();
    }
  });
});
