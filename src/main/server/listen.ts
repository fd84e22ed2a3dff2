import { chmod, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { restrictPipeToUser } from '../platform/pipeCaller.js';
import { ensurePrivateDir } from '../platform/runDir.js';

/** True when something answers on the socket: a live broker, not a file left by a crash. */
export function socketAnswers(socket: string, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const connection = net.connect(socket);
    const done = (answer: boolean) => {
      connection.destroy();
      resolve(answer);
    };
    connection.setTimeout(timeoutMs, () => done(false));
    connection.once('connect', () => done(true));
    connection.once('error', () => done(false));
  });
}

/** Listens on the Unix socket (0600, in a 0700 dir) or the Windows named pipe. */
export async function listenOnSocket(server: Server, socket: string): Promise<void> {
  if (process.platform !== 'win32') {
    await ensurePrivateDir(path.dirname(socket));
    await rm(socket, { force: true });
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, () => {
      server.off('error', reject);
      resolve();
    });
  });
  if (process.platform !== 'win32') await chmod(socket, 0o600);
  // The pipe's 0600: Node made it with Windows' default descriptor (Everyone may read).
  else restrictPipeToUser(socket);
}
