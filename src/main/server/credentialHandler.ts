import { NOTICE_HEADERS } from '../../shared/api/notices.js';
import { HEADERS } from '../../shared/api/routes.js';
import { asBrokerError } from '../core/brokerError.js';
import type { BrokerServices } from '../broker/brokerServices.js';
import { followNotices, type NoticeSources } from './callerNotices.js';
import { sendNotice } from './notice.js';
import { replyError, send, wantsJson } from './reply.js';
import type { BrokerHandler } from './route.js';
import { verifiedParentPid, type CallerWitnesses } from './verifiedCaller.js';

/**
 * POST /v1/credential, the exec plugin: the ExecCredential byte for byte, or the line a shim
 * prints on stderr with its exit code; notices while it waits on the user, for a client that asks.
 */
export function credentialHandler(
  broker: BrokerServices['credentials'],
  witnesses: CallerWitnesses,
  waiting: NoticeSources,
): BrokerHandler<'credential'> {
  return async ({ body, request, response }) => {
    let credential: string;
    const profile = body.argv[0] === 'credential' ? body.argv[1] : undefined;
    const stopNotices =
      profile && request.headers[NOTICE_HEADERS.accept] === '1'
        ? followNotices(profile, waiting, (text) => sendNotice(response, text))
        : undefined;
    try {
      // Approvals and the audit trail name the caller the kernel knows, not the one the body claims.
      const parentPid = await verifiedParentPid(request, response, body.parentPid, witnesses);
      const { parentPid: _claimed, ...rest } = body;
      credential = await broker.credential({ ...rest, ...(parentPid !== undefined ? { parentPid } : {}) });
    } catch (error) {
      const fromTerminal = body.stdinIsTerminal && body.client === 'shim';
      replyError(response, asBrokerError(error), wantsJson(request), fromTerminal);
      return;
    } finally {
      stopNotices?.();
    }
    response.setHeader(HEADERS.exitCode, '0');
    send(response, 200, 'application/json', credential);
  };
}
