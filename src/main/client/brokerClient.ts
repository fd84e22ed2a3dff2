import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { NOTICE_HEADERS, NOTICE_STATUS } from '../../shared/api/notices.js';
import {
  BROKER_OPERATIONS,
  brokerPath,
  type BrokerBody,
  type BrokerOperation,
  type BrokerParams,
} from '../../shared/api/routes.js';
import { foreignPipeServer } from '../platform/pipeCaller.js';
import { openCallerCheck } from './openCallerCheck.js';
import type { KubecredPaths } from '../platform/paths.js';
import { unsafeSocketDir } from '../platform/runDir.js';

export interface BrokerAnswer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** The broker could not be reached at all (as opposed to answering with an error). */
export class BrokerUnreachableError extends Error {
  constructor(
    readonly socket: string,
    reason: string,
    where: string = socket,
  ) {
    super(`the Kubecred broker is not running (${reason} at ${where})`);
  }
}

/**
 * The broker took the connection but gave no answer in time (its event loop hung, or the process
 * is stopped): it still runs, so nothing may be started in its place.
 */
export class BrokerSilentError extends Error {
  constructor(
    readonly socket: string,
    readonly waitedMs: number,
  ) {
    super(`the Kubecred broker at ${socket} took the request but gave no answer in ${Math.round(waitedMs / 1000)} s`);
  }
}

/**
 * The broker went away mid-request (a crash or a kill). Asking again is safe, so callers treat it
 * like no broker at all: start one and ask once more.
 */
export class BrokerVanishedError extends BrokerUnreachableError {
  constructor(socket: string) {
    super(socket, 'it closed the connection without a whole answer');
  }
}

const CONNECT_TIMEOUT_MS = 2_000;

export interface RequestOptions {
  /** Errors as JSON unless said otherwise: the exec plugin asks for the line it prints. */
  readonly accept?: string;
  /** Called with each notice the broker sends while the request waits on the user. */
  readonly onNotice?: (text: string) => void;
  /**
   * How long to wait for the answer once connected; none by default (a credential may wait
   * minutes on a person). For requests that never wait on anyone, such as stop.
   */
  readonly answerTimeoutMs?: number;
}

/** What one call carries beside its operation: path parameters and a body, each only where the operation takes them. */
export type CallArguments<O extends BrokerOperation> = ([keyof BrokerParams<O>] extends [never]
  ? { readonly params?: undefined }
  : { readonly params: BrokerParams<O> }) &
  (BrokerBody<O> extends undefined ? { readonly body?: undefined } : { readonly body: BrokerBody<O> }) &
  RequestOptions;

/** HTTP over the broker's socket, authenticated with the per-start client secret. */
export class BrokerClient {
  constructor(private readonly paths: KubecredPaths) {}

  /** One operation of the broker's API (BROKER_OPERATIONS), its method and path taken from there. */
  async call<O extends BrokerOperation>(
    operation: O,
    ...[call]: object extends CallArguments<O> ? [CallArguments<O>?] : [CallArguments<O>]
  ): Promise<BrokerAnswer> {
    const { params, body, ...options } = call ?? {};
    const path = brokerPath(operation, (params ?? {}) as BrokerParams<O>);
    const { method } = BROKER_OPERATIONS[operation];
    const answer = await this.requestOnce(method, path, body, options);
    // A broker restarted between our reading its secret and connecting has a new one: read it again.
    return answer.status === 401 ? this.requestOnce(method, path, body, options) : answer;
  }

  private async requestOnce(
    method: string,
    path: string,
    body: unknown,
    { accept = 'application/json', onNotice, answerTimeoutMs }: RequestOptions,
  ): Promise<BrokerAnswer> {
    const secret = await readFile(this.paths.clientSecret, 'utf8').catch(() => {
      throw new BrokerUnreachableError(this.paths.socket, 'no client secret', this.paths.clientSecret);
    });
    const unsafe =
      (await unsafeSocketDir(this.paths.socket)) ??
      (process.platform === 'win32' ? await foreignPipeServer(this.paths.socket, this.paths.lockFile) : undefined);
    if (unsafe) throw new Error(unsafe);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const request = http.request({
        socketPath: this.paths.socket,
        path,
        method,
        headers: {
          authorization: `Bearer ${secret.trim()}`,
          accept,
          ...(onNotice ? { [NOTICE_HEADERS.accept]: '1' } : {}),
          // Windows: the broker names this process by a one-time pipe it opens (openCallerCheck).
          ...(process.platform === 'win32' ? { [NOTICE_HEADERS.callerCheck]: '1' } : {}),
          ...(payload !== undefined
            ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
            : {}),
        },
      });
      const connectTimer = setTimeout(
        () => request.destroy(new BrokerUnreachableError(this.paths.socket, 'no answer')),
        CONNECT_TIMEOUT_MS,
      );
      // A kept-alive socket is already connected and never emits 'connect': the answer clears it too.
      request.once('socket', (socket) =>
        socket.connecting ? socket.once('connect', () => clearTimeout(connectTimer)) : clearTimeout(connectTimer),
      );
      request.once('response', () => clearTimeout(connectTimer));
      const answerTimer =
        answerTimeoutMs === undefined
          ? undefined
          : setTimeout(
              () => request.destroy(new BrokerSilentError(this.paths.socket, answerTimeoutMs)),
              answerTimeoutMs,
            );
      request.once('close', () => clearTimeout(answerTimer));
      request.on('information', (interim) => {
        const check = interim.headers[NOTICE_HEADERS.callerCheck];
        if (process.platform === 'win32' && interim.statusCode === NOTICE_STATUS && typeof check === 'string')
          openCallerCheck(check);
        const notice = interim.headers[NOTICE_HEADERS.notice];
        if (onNotice && interim.statusCode === NOTICE_STATUS && typeof notice === 'string')
          onNotice(decodeNotice(notice));
      });
      request.once('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(connectTimer);
        if (error instanceof BrokerUnreachableError || error instanceof BrokerSilentError) reject(error);
        else if (['ENOENT', 'ECONNREFUSED', 'ENOTSOCK'].includes(error.code ?? ''))
          reject(
            new BrokerUnreachableError(this.paths.socket, error.code === 'ENOENT' ? 'no socket' : 'connection refused'),
          );
        else if (['ECONNRESET', 'EPIPE'].includes(error.code ?? '')) reject(new BrokerVanishedError(this.paths.socket));
        else reject(new Error(`the Kubecred broker connection failed: ${error.message}`));
      });
      request.once('response', (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.once('error', () => reject(new BrokerVanishedError(this.paths.socket)));
        response.once('end', () => {
          if (!response.complete) reject(new BrokerVanishedError(this.paths.socket));
          else
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(chunks).toString('utf8'),
            });
        });
      });
      request.end(payload);
    });
  }
}

/** A notice as the broker encoded it; a malformed one is shown as it came rather than lost. */
function decodeNotice(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
