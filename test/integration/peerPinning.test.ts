import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PeerCredentialReader, type PeerLineage } from '../../src/main/platform/peerCredentials.js';
import { processFacts } from '../../src/main/platform/processTable.js';
import { PipeCallerVerifier } from '../../src/main/platform/pipeCaller.js';
import { verifiedParentPid } from '../../src/main/server/verifiedCaller.js';
import { assertBuilt } from '../support/repo.js';

/** The reader as the broker uses it, with what it noted at accept set to what a test says. */
class NotedAs extends PeerCredentialReader {
  constructor(private readonly noted: PeerLineage) {
    super();
  }
  override lineageAtConnect(): PeerLineage {
    return this.noted;
  }
}

// Security review 3, I7: the caller was read from /proc at request time from a pid taken at
// connect; the client could pass the socket on and exit, and a recycled pid name another
// program. The caller is read once, at accept, and never from that pid again (issue 32: one
// read of /proc per request instead of two).
describe('the caller of a connection is the process that connected', () => {
  let dir: string | undefined;
  afterEach(() => dir && rm(dir, { recursive: true, force: true }));

  it('is the parent noted at accept, whatever its pid names later, and unknown where nothing was noted', async () => {
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
      expect(peers.lineageAtConnect(socket)).toMatchObject({ parentPid: process.pid, startTime: facts?.startTime });
      expect(await verifiedParentPid(request, response, undefined, { peers, pipes })).toBe(process.pid);
      // What was noted at accept names the caller, not what the pid names now (here: this test).
      const noted = new NotedAs({ parentPid: 4242, startTime: facts?.startTime });
      noted.pin(socket);
      expect(await verifiedParentPid(request, response, 777, { peers: noted, pipes })).toBe(4242);
      // Gone before it could be noted: unknown, never the client's claim and never a read now.
      const gone = new NotedAs({});
      gone.pin(socket);
      expect(await verifiedParentPid(request, response, 777, { peers: gone, pipes })).toBeUndefined();
      socket.destroy();
    } finally {
      client.kill();
    }
  });
});
