import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProxyChannelDoor, type ChannelChecks } from '../../../src/main/proxy/proxyChannelDoor.js';

const CHILD = 4242;

/** Checks that name each connection by the pid the test says, in order. */
function namedPeers(pids: Array<number | undefined>, unshielded?: string): ChannelChecks & { readonly seen: number[] } {
  const seen: number[] = [];
  return {
    seen,
    peerPid: () => pids.shift(),
    unshieldedBecause: (pid) => (seen.push(pid), unshielded),
  };
}

/** Connects and says what the door did: `closed` with what arrived, or the error. */
function knock(
  socketPath: string,
): Promise<{ closed: boolean; received: string; error?: string; socket?: net.Socket }> {
  return new Promise((resolve) => {
    let received = '';
    const socket = net.connect(socketPath);
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.once('error', (error: NodeJS.ErrnoException) =>
      resolve({ closed: true, received, error: error.code ?? '' }),
    );
    socket.once('close', () => resolve({ closed: true, received }));
    socket.once('connect', () => setTimeout(() => resolve({ closed: false, received, socket }), 200));
  });
}

// Security review 4, D3: kubecred-proxy's channel is taken from the child the broker started
// alone, once it is shielded; any other connection is shut before a byte passes.
describe.skipIf(process.platform === 'win32')("the door of kubecred-proxy's control channel", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'kc-door-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('shuts a connection of another pid, takes the child, then leaves no socket behind', async () => {
    const door = await ProxyChannelDoor.open(dir);
    const checks = namedPeers([999, CHILD]);
    const refused: Array<[number | undefined, string]> = [];
    const admitted = door.admit({ pid: CHILD, exited: new Promise(() => undefined) }, checks, (pid, why) =>
      refused.push([pid, why]),
    );
    const intruder = await knock(door.socketPath);
    expect(intruder).toMatchObject({ closed: true, received: '' });
    expect(refused).toEqual([[999, 'it is not the kubecred-proxy this broker started']]);
    const child = await knock(door.socketPath);
    expect(child.closed).toBe(false);
    const taken = await admitted;
    expect(checks.seen).toEqual([CHILD]);
    expect(existsSync(door.socketPath)).toBe(false);
    expect((await knock(door.socketPath)).error).toBe('ENOENT');
    taken.destroy();
    child.socket?.destroy();
  });

  it("refuses the child's own pid while it is not shielded (still dumpable, or traced)", async () => {
    const door = await ProxyChannelDoor.open(dir);
    let exit: () => void = () => undefined;
    const exited = new Promise<void>((resolve) => (exit = resolve));
    const refused: string[] = [];
    const admitted = door.admit({ pid: CHILD, exited }, namedPeers([CHILD], 'it is still dumpable'), (_pid, why) =>
      refused.push(why),
    );
    expect(await knock(door.socketPath)).toMatchObject({ closed: true, received: '' });
    expect(refused).toEqual(['it is still dumpable']);
    exit();
    await expect(admitted).rejects.toThrow(/exited before it connected/);
  });

  it('without the kernel naming the peer, takes nothing and says how to fix it', async () => {
    const door = await ProxyChannelDoor.open(dir);
    const admitted = door.admit(
      { pid: CHILD, exited: new Promise(() => undefined) },
      namedPeers([undefined]),
      () => undefined,
    );
    const refusal = expect(admitted).rejects.toThrow(/peer-credentials addon is missing: rebuild Kubecred/);
    expect(await knock(door.socketPath)).toMatchObject({ closed: true, received: '' });
    await refusal;
  });

  it('shuts connections that come while nobody is awaited', async () => {
    const door = await ProxyChannelDoor.open(dir);
    expect(await knock(door.socketPath)).toMatchObject({ closed: true, received: '' });
    door.close();
  });
});
