import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { NOTICE_HEADERS } from '../../shared/api/notices.js';
import type { PeerCredentialReader } from '../platform/peerCredentials.js';
import type { PipeCallerVerifier } from '../platform/pipeCaller.js';
import { processFacts, processLineage, type ProcessFacts } from '../platform/processTable.js';
import { sendCallerCheck } from './notice.js';

/** How long a client has to open the one-time pipe: it does so the moment it reads the name. */
const PIPE_CHECK_MS = 3_000;

/** How the kernel is asked who connected: SO_PEERCRED on a Unix socket, a one-time pipe on Windows. */
export interface CallerWitnesses {
  readonly peers: PeerCredentialReader;
  readonly pipes: PipeCallerVerifier;
}

/**
 * The pid of the program that ran the client (kubectl, docker, the kubelet): the parent of the
 * process at the other end of the socket, as the kernel tells it. A client's own claim is used
 * only where the kernel cannot be asked (no addon, an unbuilt checkout); where it can and the
 * answer is gone (the client already exited, or will not prove itself), the caller is unknown,
 * never the claim.
 */
export async function verifiedParentPid(
  request: IncomingMessage,
  response: ServerResponse,
  claimed: number | undefined,
  { peers, pipes }: CallerWitnesses,
): Promise<number | undefined> {
  if (pipes.available) return pipeCallerParent(request, response, pipes);
  if (!peers.available) return claimed;
  const peer = peers.of(request.socket);
  if (!peer) return undefined;
  // Read when the connection was accepted, not from the pid now: by now it may name another
  // program (the client passed the socket on and exited). A server that does not pin reads now.
  return (peers.lineageAtConnect(request.socket) ?? processLineage(peer.pid))?.parentPid;
}

/**
 * Windows: Node keeps an accepted pipe's handle to itself, so the client is asked, in an interim
 * answer, to open a one-time pipe of the broker's; Windows names the process that did. A client
 * that cannot (an older shim) or will not is an unknown caller.
 */
async function pipeCallerParent(
  request: IncomingMessage,
  response: ServerResponse,
  pipes: PipeCallerVerifier,
): Promise<number | undefined> {
  if (request.headers[NOTICE_HEADERS.callerCheck] !== '1') return undefined;
  const check = pipes.check(PIPE_CHECK_MS);
  sendCallerCheck(response, check.pipe);
  const pid = await check.caller.catch(() => undefined);
  const client = pid === undefined ? undefined : await processFacts(pid);
  const parent = await parentOf(client);
  // Windows has no exec: a shim that hands over runs the CLI as its child. The program that
  // asked is then the shim's parent.
  if (parent && path.win32.basename(parent.executable ?? '').toLowerCase() === 'kubecred-shim.exe')
    return (await parentOf(parent))?.pid;
  return parent?.pid;
}

/** A process's parent, unless that pid now names a program that started after it (Windows reuses pids). */
async function parentOf(child: ProcessFacts | undefined): Promise<ProcessFacts | undefined> {
  if (!child?.parentPid || !child.startTime) return undefined;
  const parent = await processFacts(child.parentPid);
  if (!parent?.startTime || BigInt(parent.startTime) > BigInt(child.startTime)) return undefined;
  return parent;
}
