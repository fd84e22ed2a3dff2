import http from 'node:http';
import { rm } from 'node:fs/promises';
import type { Logger } from '../broker/logger.js';
import type { KubecredPaths } from '../platform/paths.js';
import type { Route } from './brokerRoutes.js';
import { httpApp } from './httpApp.js';
import { acquireInstanceLock, AlreadyRunningError } from './instanceLock.js';
import { listenOnSocket, socketAnswers } from './listen.js';
import { refuseClient } from './refuseClient.js';
import { ensurePrivateDir, writeClientSecret } from './runDir.js';

export interface RunningServer {
  readonly socket: string;
  close(): Promise<void>;
}

// A slow sender gets this long to deliver headers and body; answers (logins) may take longer.
const REQUEST_RECEIVE_TIMEOUT_MS = 15_000;
const HEADERS_TIMEOUT_MS = 10_000;
const MAX_HEADER_BYTES = 16 * 1024;

/** Takes the single-instance lock, writes a fresh client secret and serves the routes on the socket. */
export async function startBrokerServer(paths: KubecredPaths, routes: (secret: string) => Route[], logger: Logger): Promise<RunningServer> {
  await ensurePrivateDir(paths.runDir);
  const lock = await acquireInstanceLock(paths.lockFile);
  try {
    if (await socketAnswers(paths.socket)) throw new AlreadyRunningError(Number.NaN);
    const secret = await writeClientSecret(paths.clientSecret);
    const server = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES, requestTimeout: REQUEST_RECEIVE_TIMEOUT_MS, headersTimeout: HEADERS_TIMEOUT_MS, keepAliveTimeout: 5_000, connectionsCheckingInterval: 1_000 });
    server.timeout = 0;
    const app = httpApp(routes(secret), secret, logger);
    server.on('request', (request, response) => void app(request, response));
    server.on('clientError', (error, connection) => {
      refuseClient(error, connection);
      logger.warn('malformed request', { reason: (error as Error).message });
    });
    await listenOnSocket(server, paths.socket);
    logger.info('broker listening', { socket: paths.socket, pid: process.pid });
    return {
      socket: paths.socket,
      close: async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
          setTimeout(() => server.closeAllConnections(), 5_000).unref();
        });
        if (process.platform !== 'win32') await rm(paths.socket, { force: true });
        await rm(paths.clientSecret, { force: true });
        await lock.release();
      },
    };
  } catch (error) {
    await lock.release();
    throw error;
  }
}

