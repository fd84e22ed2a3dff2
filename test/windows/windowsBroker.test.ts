import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WHOAMI_ARGS } from '../support/kubectl.js';
import { writeConfig } from '../support/broker.js';
import { writeExecKubeconfig } from '../support/kubeconfig.js';
import type { KubeApiServer } from '../support/kubeApiServer.js';
import { REPO_ROOT } from '../support/repo.js';
import { startWindowsCluster } from '../support/windowsCluster.js';
import type { TempHome } from '../support/tempHome.js';
import { endWindowsWorld, WineRunner, windowsPath, type WineWorld } from '../support/wine.js';

const TOKEN = 'kc-windows-token-3f9a6c1e8b';
// Credential Manager holds at most 2,560 bytes a credential: this one takes chunks.
const BIG_TOKEN = `kc-windows-big-${'9b2e4d7a1c'.repeat(400)}`;
const SHIM_EXE = path.join(REPO_ROOT, 'dist', 'shim', 'windows-amd64', 'kubecred-shim.exe');
const CLI = windowsPath(path.join(REPO_ROOT, 'bin', 'kubecred'));
const ADDON = path.join(REPO_ROOT, 'dist', 'native', 'win32-x64', 'pipe_client.node');

/**
 * Kubecred as it runs on Windows, under Wine: the broker on node.exe, its address the named
 * pipe, secrets in Credential Manager through the keychain binding's Windows build,
 * kubecred-shim.exe as kubectl's exec plugin (handing over to the CLI when no broker runs), and
 * a Windows kubectl.exe reaching a real kube-apiserver through it.
 */
describe('Windows, under Wine: kubectl.exe through kubecred-shim.exe and the named pipe', () => {
  let world: WineWorld;
  let home: TempHome;
  let api: KubeApiServer;
  let wine: WineRunner;
  let kubeconfig: string;
  const kubecred = (args: string[], input?: string) =>
    wine.run(world.nodeExe, [CLI, ...args], input === undefined ? {} : { input });
  const kubectl = (context: string) =>
    wine.run(world.kubectl, ['--kubeconfig', windowsPath(kubeconfig), '--context', context, ...WHOAMI_ARGS]);

  beforeAll(async () => {
    const cluster = await startWindowsCluster([
      { token: TOKEN, user: 'windows-user' },
      { token: BIG_TOKEN, user: 'windows-big' },
    ]);
    ({ world, home, api } = cluster);
    await writeConfig(
      home.dir,
      'profiles:\n  - { name: win, provider: static }\n  - { name: big, provider: static }\n',
    );
    const scratch = path.join(home.dir, 'wine-io');
    await mkdir(scratch);
    wine = new WineRunner(world, scratch, {
      KUBECRED_HOME: windowsPath(home.dir),
      // `node` on the Windows PATH: the shim hands over to bin/kubecred through it.
      WINEPATH: windowsPath(path.dirname(world.nodeExe)),
    });
    kubeconfig = await writeExecKubeconfig({
      path: path.join(home.dir, 'kubeconfig'),
      server: api.url,
      caPem: api.caPem,
      command: windowsPath(SHIM_EXE),
      args: ['credential', 'win'],
      apiVersion: 'client.authentication.k8s.io/v1',
      env: { KUBECRED_HOME: windowsPath(home.dir) },
    });
    // A second context for the big secret, the same cluster.
    const text = await readFile(kubeconfig, 'utf8');
    const { parse, stringify } = await import('yaml');
    const doc = parse(text) as {
      contexts: Array<{ name: string; context: { cluster: string; user: string } }>;
      users: Array<{ name: string; user: { exec: { args: string[] } } }>;
    };
    const [context] = doc.contexts;
    const [user] = doc.users;
    doc.contexts = [
      { name: 'win', context: context!.context },
      { name: 'big', context: { ...context!.context, user: 'big' } },
    ];
    doc.users.push({ name: 'big', user: { exec: { ...user!.user.exec, args: ['credential', 'big'] } } });
    await writeFile(kubeconfig, stringify(doc), { mode: 0o600 });
  }, 600_000);

  afterAll(
    () =>
      endWindowsWorld({
        world,
        kubecred: wine ? kubecred : undefined,
        profiles: ['win', 'big'],
        stopAlso: [() => api?.stop(), () => home?.cleanup()],
      }),
    60_000,
  );

  it('stores a token in Credential Manager through a broker on node.exe, listening on the named pipe only', async () => {
    const stored = await kubecred(['secret', 'set', 'win', 'token'], TOKEN);
    expect(stored.code, stored.stderr).toBe(0);
    const status = await kubecred(['status']);
    expect(status.stdout).toMatch(/^broker: running \(pid \d+/m);
    expect(status.stdout).toMatch(/^socket: \\\\\.\\pipe\\kubecred-[0-9a-f]{16}$/m);
    // Only this user and LocalSystem may open the pipe (Node made it with Everyone: read).
    const pipe = /^socket: (\S+)$/m.exec(status.stdout)![1]!;
    const probe = path.join(home.dir, 'wine-io', 'pipe-security.cjs');
    await writeFile(
      probe,
      `process.stdout.write(require(${JSON.stringify(windowsPath(ADDON))}).pipeSecurity(${JSON.stringify(pipe)}))`,
    );
    const security = await wine.run(world.nodeExe, [windowsPath(probe)]);
    expect(security.stdout, security.stderr).toMatch(/^D:P?\(A;;GA;;;S-1-5-21-[\d-]+\)\(A;;GA;;;SY\)$/);
    // No Unix socket, no file holding the token in the home.
    expect(existsSync(path.join(home.dir, 'run', 'broker.sock'))).toBe(false);
    // (wine-io holds what the test typed into the CLI, as a person's keyboard would.)
    for (const file of await filesUnder(home.dir, ['apiserver', 'pki', 'wine-io']))
      expect(await readFile(file, 'utf8'), file).not.toContain(TOKEN);
  });

  it('with no broker running, kubectl.exe through kubecred-shim.exe hands over to the CLI, which starts one: whoami shows the user', async () => {
    const stopped = await kubecred(['stop']);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect((await kubecred(['status'])).stdout).toMatch(/^broker: not running/m);
    const whoami = await kubectl('win');
    expect(whoami.stderr).toBe('');
    expect(whoami.stdout).toBe('windows-user');
    expect((await kubecred(['status'])).stdout).toMatch(/^broker: running \(pid \d+/m);
    // Handed over, the CLI runs as the shim's child (Windows has no exec): the caller is still kubectl.exe.
    const handedOver = (await auditRecords(home.dir)).filter((r) => r.profile === 'win' && r.caller.client === 'node');
    expect(handedOver.at(-1)?.caller.name).toBe('kubectl.exe');
    // From the running broker now, over the pipe, with no handover.
    const again = await kubectl('win');
    expect(again.stdout, again.stderr).toBe('windows-user');
  });

  it('names the caller as Windows knows it: kubectl.exe that ran the shim, not a pid a client claims', async () => {
    const whoami = await kubectl('win');
    expect(whoami.stdout, whoami.stderr).toBe('windows-user');
    const served = (await auditRecords(home.dir)).filter((r) => r.profile === 'win' && r.caller.client === 'shim');
    expect(served.at(-1)?.caller).toMatchObject({ name: 'kubectl.exe', pid: expect.any(Number) });

    // A lying client: it claims to be pid 4 (System) and will not open the broker's one-time pipe.
    const liar = path.join(home.dir, 'wine-io', 'liar.mjs');
    const client = pathToFileURL(path.join(REPO_ROOT, 'dist', 'main', 'client', 'brokerClient.js')).href.replace(
      'file:///',
      'file:///Z:/',
    );
    await writeFile(
      liar,
      `import http from 'node:http';
import { readFileSync } from 'node:fs';
const home = process.env.KUBECRED_HOME;
const { kubecredPaths } = await import(${JSON.stringify(client.replace('client/brokerClient.js', 'platform/paths.js'))});
const paths = kubecredPaths();
const secret = readFileSync(paths.clientSecret, 'utf8').trim();
const body = JSON.stringify({ argv: ['credential', 'win'], execInfo: JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', spec: { interactive: false } }), stdinIsTerminal: false, parentPid: 4, client: 'node', environment: {} });
const request = http.request({ socketPath: paths.socket, path: '/v1/credential', method: 'POST', headers: { authorization: 'Bearer ' + secret, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'kubecred-caller-check': '1' } });
request.on('response', (response) => { response.resume(); response.on('end', () => console.log('answered ' + response.statusCode)); });
request.end(body);
void home;
`,
    );
    const lied = await wine.run(world.nodeExe, [windowsPath(liar)]);
    expect(lied.stdout, lied.stderr).toContain('answered 200');
    const last = (await auditRecords(home.dir)).filter((r) => r.profile === 'win').at(-1);
    expect(last?.caller.client).toBe('node');
    // Not pid 4: it never proved anything, so it is nobody the kernel could name.
    expect(last?.caller.pid).toBeUndefined();
  });

  it("a program that took the broker's pipe name first is told nothing: not the client secret, not the request", async () => {
    const status = await kubecred(['status']);
    const pipe = /^socket: (\S+)$/m.exec(status.stdout)![1]!;
    expect((await kubecred(['stop'])).code).toBe(0);
    // What a squatter finds once the broker is gone: the name free, and (planted) the files a
    // broker leaves while it runs, with a pid that is not the squatter's.
    const planted = 'kc-planted-client-secret-5d0c2b7e9f';
    await writeFile(path.join(home.dir, 'run', 'client-secret'), `${planted}\n`);
    await writeFile(path.join(home.dir, 'run', 'broker.lock'), '4\n');
    const heard = path.join(home.dir, 'wine-io', 'squatter-heard.txt');
    const squatterScript = path.join(home.dir, 'wine-io', 'squatter.cjs');
    await writeFile(
      squatterScript,
      `const fs = require('fs');
require('net').createServer((c) => c.on('data', (d) => fs.appendFileSync(${JSON.stringify(windowsPath(heard))}, d))).listen(${JSON.stringify(pipe)}, () => console.log('listening'));
setTimeout(() => process.exit(0), 60000);
`,
    );
    const squatter = wine.start(world.nodeExe, [windowsPath(squatterScript)]);
    try {
      await expect.poll(() => squatter.stdout(), { timeout: 30_000 }).toContain('listening');
      const shim = await wine.run(SHIM_EXE, ['credential', 'win'], {
        env: {
          KUBERNETES_EXEC_INFO: JSON.stringify({
            apiVersion: 'client.authentication.k8s.io/v1',
            kind: 'ExecCredential',
            spec: { interactive: false },
          }),
        },
      });
      expect(shim.code).not.toBe(0);
      expect(shim.stderr).toMatch(/is not the Kubecred broker \(pid 4 in .*broker\.lock\)/);
      const cli = await kubecred(['status']);
      expect(cli.stdout + cli.stderr).toMatch(/is not the Kubecred broker/);
      const said = await readFile(heard, 'utf8').catch(() => '');
      expect(said).not.toContain(planted);
      expect(said).not.toContain('credential');
    } finally {
      squatter.process.kill('SIGKILL');
      WineRunner.stopAll(world);
    }
  });

  it('a secret larger than a Credential Manager credential (2,560 bytes) goes in chunks and comes back whole', async () => {
    expect(Buffer.byteLength(BIG_TOKEN)).toBeGreaterThan(2_560);
    const stored = await kubecred(['secret', 'set', 'big', 'token'], BIG_TOKEN);
    expect(stored.code, stored.stderr).toBe(0);
    // A restart: the token comes from Credential Manager, not from the broker's memory.
    expect((await kubecred(['stop'])).code).toBe(0);
    // Wine keeps Credential Manager in the registry: the token is there in pieces, none of it plain.
    const kept = await credentialManager(world);
    const pieces = [...kept].filter(([target]) => /^big\/token#\d+\.kubecred$/.test(target));
    expect(pieces.length).toBeGreaterThan(1);
    for (const [target, password] of kept) {
      expect(password.toString('utf8'), target).not.toContain(BIG_TOKEN.slice(0, 24));
      expect(password.toString('utf16le'), target).not.toContain(BIG_TOKEN.slice(0, 24));
    }
    const whoami = await kubectl('big');
    expect(whoami.stdout, whoami.stderr).toBe('windows-big');
  });
});

/** Wine's Credential Manager as it keeps it (in user.reg, flushed first): each generic target and its stored blob. */
async function credentialManager(world: WineWorld): Promise<Map<string, Buffer>> {
  WineRunner.stopAll(world);
  const registry = (await readFile(path.join(world.prefix, 'user.reg'), 'latin1')).replace(/\\\r?\n\s*/g, '');
  const stored = new Map<string, Buffer>();
  for (const section of registry.split(/^\[/m)) {
    const target = /^Software\\\\Wine\\\\Credential Manager\\\\Generic: ([^\]]+)\]/.exec(section)?.[1];
    const hex = /^"Password"=hex:([0-9a-f,]*)$/m.exec(section)?.[1];
    if (target && hex !== undefined) stored.set(target, Buffer.from(hex.replace(/,/g, ''), 'hex'));
  }
  return stored;
}

async function auditRecords(
  home: string,
): Promise<Array<{ profile: string; caller: { client: string; pid?: number; name?: string } }>> {
  const text = await readFile(path.join(home, 'state', 'audit.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { profile: string; caller: { client: string; pid?: number; name?: string } });
}

async function filesUnder(dir: string, skip: readonly string[]): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && !skip.some((s) => path.relative(dir, entry.parentPath).startsWith(s)))
    .map((entry) => path.join(entry.parentPath, entry.name));
}
