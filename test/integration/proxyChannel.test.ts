import { spawn } from 'node:child_process';
import { existsSync, readlinkSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlChannel } from '../../src/main/proxy/controlChannel.js';
import { ProxyChannelDoor } from '../../src/main/proxy/proxyChannelDoor.js';
import { proxyChannelChecks } from '../../src/main/proxy/proxyWiring.js';
import { startGuardedCluster, type GuardedCluster } from '../support/guardedCluster.js';
import { findKubectlBuilds, WHOAMI_ARGS } from '../support/kubectl.js';
import { NATIVE_SHIM, assertBuilt } from '../support/repo.js';

const PROXY = path.join(path.dirname(NATIVE_SHIM), 'kubecred-proxy');
const KUBECTL = findKubectlBuilds().at(-1)!;
const TOKEN = `channel-${Date.now().toString(36)}-ivo`;

/** A program of the user that is not the proxy: connects to `socket`, sends what a thief would, prints what came back. */
function intruder(socket: string): Promise<{ pid: number; output: string }> {
  const script = `const s = require('node:net').connect(process.argv[1]);
let got = '';
s.on('connect', () => s.write(JSON.stringify({ id: 1, type: 'credential', profile: 'prod', reason: 'missing' }) + '\\n'));
s.on('data', (d) => (got += d));
s.on('error', (e) => (got += 'error ' + e.code));
s.on('close', () => { process.stdout.write(got === '' ? 'closed, nothing received' : got); });`;
  const child = spawn(process.execPath, ['-e', script, socket], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.once('exit', () => resolve({ pid: child.pid!, output })));
}

// Security review 4, D3: kubecred-proxy is dumpable from execve until its main() runs, so a
// program of the same user could copy its stdio with pidfd_getfd then and keep the copies. Its
// stdio was the control channel: the copies read the local CA's key from `init` and asked the
// broker, as the proxy, for a profile's credential. Now the channel is a socket the proxy
// connects to after it made itself non-dumpable, taken only from the pid the broker spawned.
describe.skipIf(process.platform === 'win32')("kubecred-proxy's control channel (security review 4, D3)", () => {
  it('the copies of its stdio carry nothing secret, and the channel is taken from the child alone', async () => {
    assertBuilt({ shim: true });
    const dir = await mkdtemp(path.join(tmpdir(), 'kc-d3-'));
    try {
      const door = await ProxyChannelDoor.open(dir);
      let exit: () => void = () => undefined;
      const exited = new Promise<void>((resolve) => (exit = resolve));
      const awaited: { pid: number | undefined; exited: Promise<void> } = { pid: undefined, exited };
      const refusals: Array<{ pid: number | undefined; why: string }> = [];
      const admitted = door.admit(awaited, proxyChannelChecks()!, (pid, why) => refusals.push({ pid, why }));

      // A program that is not the child is shut out before a byte passes either way.
      const first = await intruder(door.socketPath);
      // Closed, or reset since it had written first: never a byte back.
      expect(first.output).toMatch(/^(closed, nothing received|error ECONNRESET|error EPIPE)$/);
      expect(refusals).toEqual([{ pid: first.pid, why: 'it is not the kubecred-proxy this broker started' }]);

      // The proxy as the supervisor starts it, but its stdin, stdout and stderr held here: what
      // a program that copied them while the proxy started holds.
      const proxy = spawn(PROXY, ['--channel', door.socketPath], { stdio: ['pipe', 'pipe', 'pipe'] });
      proxy.once('exit', () => exit());
      awaited.pid = proxy.pid;
      let stdio = '';
      proxy.stdout.on('data', (chunk: Buffer) => (stdio += chunk.toString()));
      proxy.stderr.on('data', (chunk: Buffer) => (stdio += chunk.toString()));
      const socket = await admitted;
      let handedOver = 0;
      const channel = new ControlChannel(
        socket,
        socket,
        { credential: async () => (handedOver++, { credential: { token: TOKEN } }) },
        () => undefined,
        () => undefined,
      );
      socket.resume();
      const init = await channel.request('init', { ca: null });
      expect(String((init.ca as { keyPem: string }).keyPem)).toContain('PRIVATE KEY');

      // What the borrowed stdio did before: ask the broker for a credential, read init off it.
      proxy.stdin.write(`${JSON.stringify({ id: 7, type: 'init', ca: null })}\n`);
      proxy.stdin.write(`${JSON.stringify({ id: 8, type: 'issue', profile: 'prod', ttlSeconds: 60 })}\n`);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(stdio).not.toMatch(/PRIVATE KEY|CERTIFICATE|"reply"/);
      expect(stdio).toBe('');
      expect(handedOver).toBe(0);
      expect(proxy.exitCode).toBeNull();

      // The door is shut once the child is in: nothing to connect to, and no second proxy.
      expect(existsSync(door.socketPath)).toBe(false);
      expect((await intruder(door.socketPath)).output).toBe('error ENOENT');
      expect((await channel.request('stats', {})).goroutines).toBeGreaterThan(0);

      // The channel is the proxy's lifeline.
      socket.end();
      await exited;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  describe('the broker and the kubecred-proxy it started, against a real kube-apiserver', () => {
    let cluster: GuardedCluster;
    beforeAll(async () => {
      cluster = await startGuardedCluster({
        profile: 'prod',
        users: [{ token: TOKEN, user: 'ivo', groups: ['ops'] }],
        kubectl: KUBECTL.path,
      });
    }, 300_000);
    afterAll(async () => {
      await cluster?.stop();
    });

    it("the proxy's stdin and stdout are /dev/null, its channel's socket is gone, and each credential it asks for is audited", async () => {
      const whoami = await cluster.kubectl([...WHOAMI_ARGS]);
      expect(whoami.stdout, whoami.stderr).toBe('ivo');
      const { pid } = JSON.parse((await cluster.cli(['proxy', 'status', '-o', 'json'])).stdout) as { pid: number };
      expect(readlinkSync(`/proc/${pid}/fd/0`)).toBe('/dev/null');
      expect(readlinkSync(`/proc/${pid}/fd/1`)).toBe('/dev/null');
      const [, flag, socketPath] = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      expect(flag).toBe('--channel');
      expect(path.dirname(socketPath!)).toBe(path.dirname(cluster.broker.socket));
      expect(existsSync(socketPath!)).toBe(false);

      // A token the cluster refuses: the proxy asks the broker again (reason "rejected").
      const wrong = await cluster.cli(['secret', 'set', 'prod', 'token'], `${TOKEN}-wrong`);
      expect(wrong.code, wrong.stderr).toBe(0);
      const refused = await cluster.kubectl([...WHOAMI_ARGS]);
      expect(refused.code).not.toBe(0);
      const handovers = (await readFile(path.join(cluster.home.dir, 'state', 'audit.jsonl'), 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { profile: string; handover?: unknown; caller: unknown; outcome: string })
        .filter((record) => record.handover);
      expect(handovers).toContainEqual(
        expect.objectContaining({
          profile: 'prod',
          handover: { reason: 'rejected' },
          caller: { client: 'kubecred-proxy', name: 'kubecred-proxy', pid },
        }),
      );
      expect(JSON.stringify(handovers)).not.toContain(TOKEN);
    }, 120_000);
  });
});
