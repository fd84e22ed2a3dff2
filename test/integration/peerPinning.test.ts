import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PeerCredentialReader } from '../../src/main/platform/peerCredentials.js';
import { processFacts } from '../../src/main/platform/processTable.js';
import { PipeCallerVerifier } from '../../src/main/platform/pipeCaller.js';
import { verifiedParentPid } from '../../src/main/server/verifiedCaller.js';
import { assertBuilt } from '../support/repo.js';

/** The reader as the broker uses it, with the start time noted at accept set to what a test says. */
class NotedAs extends PeerCredentialReader {
  constructor(private readonly noted: string | undefined) {
    super();
  }
  override startTimeAtConnect(): string | undefined {
    return this.noted;
  }
}

// Security review 3, I7: the caller was read from /proc at request time from a pid taken at
// connect; the client could pass the socket on and exit, and a recycled pid name another
// program. The start time noted at accept must still match.
describe('the caller of a connection is the process that connected', () => {
  let dir: string | undefined;
  afterEach(() => dir && rm(dir, { recursive: true, force: true }));

  it('is named while its pid still names the process noted at accept, and unknown once it does not', async () => {
    assertBuilt({ shim: true });
    dir = await mkdtemp(path.join(os.tmpdir(), 'kc-peer-'));
    const socketPath = path.join(dir, 's.sock');
    const peers = new PeerCredentialReader();
    const accepted = new Promise<net.Socket>((resolve) => {
      const server = net.createServer((socket) => {
        peers.pin(socket);
        resolve(socket);
        server.close();
      });
      server.listen(socketPath);
    });
    const client = spawn(process.execPath, [
      '-e',
      `require('net').connect(${JSON.stringify(socketPath)}); setTimeout(() => {}, 30000)`,
    ]);
    try {
      const socket = await accepted;
      const request = { socket } as IncomingMessage;
      // Not Windows: no pipe check, so nothing is written to the answer.
      const response = {} as ServerResponse;
      const pipes = new PipeCallerVerifier();
      const facts = await processFacts(client.pid!);
      expect(peers.of(socket)?.pid).toBe(client.pid);
      expect(peers.startTimeAtConnect(socket)).toBe(facts?.startTime);
      expect(await verifiedParentPid(request, response, undefined, { peers, pipes })).toBe(process.pid);
      // The same pid, but the process noted at accept started at another time: not this one.
      const recycled = new NotedAs(String(Number(facts!.startTime) - 1));
      recycled.pin(socket);
      expect(await verifiedParentPid(request, response, 4242, { peers: recycled, pipes })).toBeUndefined();
      socket.destroy();
    } finally {
      client.kill();
    }
  });
});
