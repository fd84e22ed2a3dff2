import type { IncomingMessage } from 'node:http';
import type { PeerCredentialReader } from '../platform/peerCredentials.js';
import { processFacts } from '../platform/processTable.js';

/**
 * The pid of the program that ran the client (kubectl, docker, the kubelet): the parent of the
 * process at the other end of the socket, as the kernel tells it. A client's own claim is used
 * only where the kernel cannot be asked (no addon: Windows, an unbuilt checkout); where it can
 * and the answer is gone (the client already exited), the caller is unknown, never the claim.
 */
export async function verifiedParentPid(
  request: IncomingMessage,
  claimed: number | undefined,
  peers: PeerCredentialReader,
): Promise<number | undefined> {
  if (!peers.available) return claimed;
  const peer = peers.of(request.socket);
  if (!peer) return undefined;
  const facts = await processFacts(peer.pid);
  // The pid now names another process than the one that connected: the caller is unknown.
  const startedAtConnect = peers.startTimeAtConnect(request.socket);
  if (startedAtConnect !== undefined && facts?.startTime !== startedAtConnect) return undefined;
  return facts?.parentPid;
}
