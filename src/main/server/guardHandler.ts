import type { IncomingMessage } from 'node:http';
import { realpathSync } from 'node:fs';
import type { BrokerServices } from '../broker/brokerServices.js';
import type { GuardAsker } from '../broker/guardControl.js';
import { inForegroundTerminal } from '../platform/foregroundTerminal.js';
import type { CallerDescription } from '../platform/processInfo.js';
import { NOTICE_HEADERS } from '../../shared/api/notices.js';
import { followNotices, type NoticeSources } from './callerNotices.js';
import { sendNotice } from './notice.js';
import { replyJson } from './reply.js';
import type { BrokerHandler } from './route.js';
import type { CallerWitnesses } from './verifiedCaller.js';

/** What the handler needs to name the program at the other end of the socket. */
export interface GuardCallerSources {
  readonly witnesses: CallerWitnesses;
  readonly callers: { describe(pid: number | undefined): Promise<CallerDescription> };
  /** Whether that process runs in the foreground of a terminal (platform/foregroundTerminal.ts). */
  readonly inTerminal?: (pid: number, startTime: string | undefined) => boolean;
  /** The runtime the broker's own CLI runs on (node, or the app's binary); defaults to this process's. */
  readonly cliRuntime?: string;
}

/**
 * POST /v1/profiles/:profile/guard over the socket. Putting a guard back needs nobody's yes. A
 * lift is the person's: taken at once only from Kubecred's CLI in the foreground of a terminal,
 * as the kernel tells it (not as the client claims); from any other program the person is asked
 * in the window, and with no window it is refused. Either way the audit names the program.
 */
export function guardHandler(
  guards: BrokerServices['guards'],
  sources: GuardCallerSources,
  waiting: NoticeSources,
): BrokerHandler<'guard'> {
  return async ({ params: { profile }, body, request, response }) => {
    const asker = await socketAsker(request, sources);
    if (!body.off) return replyJson(response, 200, await guards.on(profile, asker));
    // While the lift waits for the person's Allow, the caller's terminal says where to give it.
    const stopNotices =
      request.headers[NOTICE_HEADERS.accept] === '1'
        ? followNotices(profile, waiting, (text) => sendNotice(response, text))
        : undefined;
    try {
      replyJson(response, 200, await guards.off(profile, body.forSeconds * 1000, asker));
    } finally {
      stopNotices?.();
    }
  };
}

export async function socketAsker(request: IncomingMessage, sources: GuardCallerSources): Promise<GuardAsker> {
  const { peers } = sources.witnesses;
  const peer = peers.available ? peers.of(request.socket) : undefined;
  if (!peer) return { caller: {}, client: 'socket', byThePerson: false };
  const caller = await sources.callers.describe(peer.pid).catch((): CallerDescription => ({ pid: peer.pid }));
  const startTime = peers.lineageAtConnect(request.socket)?.startTime;
  const inTerminal = (sources.inTerminal ?? inForegroundTerminal)(peer.pid, startTime);
  // The terminal vouches only for a program Kubecred's CLI could be: the same runtime as the
  // broker. A forwarded socket (ssh) or any other program in a terminal is asked in the window.
  const ourRuntime = caller.path !== undefined && caller.path === (sources.cliRuntime ?? runtimePath());
  return inTerminal && ourRuntime
    ? { caller, client: 'cli-terminal', byThePerson: true }
    : { caller, client: 'socket', byThePerson: false };
}

function runtimePath(): string {
  try {
    return realpathSync(process.execPath);
  } catch {
    return process.execPath;
  }
}
