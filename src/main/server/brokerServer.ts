import http from 'node:http';
import type { Socket } from 'node:net';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../core/logger.js';
import type { KubecredPaths } from '../platform/paths.js';
import type { Route } from './route.js';
import { httpApp } from './httpApp.js';
import { acquireInstanceLock, AlreadyRunningError } from './instanceLock.js';
import { listenOnSocket, socketAnswers } from './listen.js';
import { refuseClient } from './refuseClient.js';
import { ensurePrivateDir, writeClientSecret } from '../platform/runDir.js';

export interface RunningServer {
  readonly socket: string;
  close(): Promise<void>;
}

// A slow sender gets this long to deliver headers and body; answers (logins) may take longer.
const REQUEST_RECEIVE_TIMEOUT_MS = 15_000;
const HEADERS_TIMEOUT_MS = 10_000;
const MAX_HEADER_BYTES = 16 * 1024;

/** Takes the single-instance lock, writes a fresh client secret and serves the routes on the socket. */
export async function startBrokerServer(
  paths: KubecredPaths,
  routes: (secret: string) => Route[],
  logger: Logger,
  /** Sees each connection as it is accepted, before any request on it is read. */
  onConnection: (socket: Socket) => void = () => {},
): Promise<RunningServer> {
  if (process.platform === 'win32') {
    // Windows has no file modes: one ACL on the whole home keeps the client secret, the logs and
    // the kubeconfig backups to this user; the run dir inherits it. A named pipe has no directory.
    await ensurePrivateDir(paths.home);
    await mkdir(paths.runDir, { recursive: true });
  } else {
    await ensurePrivateDir(paths.runDir);
    // Ours before anything is asked of it: a listener another user planted there must neither
    // make us give up ("already running") nor be handed the secret.
    await ensurePrivateDir(path.dirname(paths.socket));
  }
  const lock = await acquireInstanceLock(paths.lockFile);
  let wroteSecret = false;
  try {
    if (await socketAnswers(paths.socket)) throw new AlreadyRunningError(Number.NaN);
    const secret = await writeClientSecret(paths.clientSecret);
    wroteSecret = true;
    const server = http.createServer({
      maxHeaderSize: MAX_HEADER_BYTES,
      requestTimeout: REQUEST_RECEIVE_TIMEOUT_MS,
      headersTimeout: HEADERS_TIMEOUT_MS,
      keepAliveTimeout: 5_000,
      connectionsCheckingInterval: 1_000,
    });
    server.timeout = 0;
    const app = httpApp(routes(secret), secret, logger);
    server.on('connection', onConnection);
    server.on('request', (request, response) => void app(request, response));
    server.on('clientError', (error, connection) => {
      refuseClient(error, connection);
      logger.warn('malformed request', { reason: (error as Error).message });
    });
    await listenOnSocket(server, paths.socket);
    // After listen, a server error (EMFILE on accept, say) is logged and survived, never a crash.
    server.on('error', (error) => logger.error('socket server error', { reason: error.message }));
    logger.info('broker listening', { socket: paths.socket, pid: process.pid });
    return {
      socket: paths.socket,
      close: async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
          // Waiting callers were told the broker stops; whatever still holds a connection is cut.
          setTimeout(() => server.closeAllConnections(), 1_000).unref();
        });
        if (process.platform !== 'win32') await rm(paths.socket, { force: true });
        await rm(paths.clientSecret, { force: true });
        await lock.release();
      },
    };
  } catch (error) {
    // A failed start leaves no secret behind for a broker that never served.
    if (wroteSecret) await rm(paths.clientSecret, { force: true });
    await lock.release();
    throw error;
  }
}
