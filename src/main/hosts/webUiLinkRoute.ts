import path from 'node:path';
import { PeerCredentialReader } from '../platform/peerCredentials.js';
import { processFacts } from '../platform/processTable.js';
import { replyJson } from '../server/reply.js';
import { operationRoute, type Route } from '../server/route.js';
import type { LinkOrigin } from '../webui/sessionKeeper.js';
import type { WebUiHost } from './webUiHost.js';

/**
 * POST /v1/webui/link: a fresh one-time link to the web UI, for `kubecred ui`. A broker that
 * kubectl started has no web UI yet: asking for a link starts it. The link remembers which
 * program asked (from the kernel), so the page it opens can never approve that program.
 */
export function webUiRoutes(
  host: WebUiHost | undefined,
  peers: PeerCredentialReader = new PeerCredentialReader(),
): Route[] {
  return [
    operationRoute('webUiLink', async ({ request, response }) => {
      if (!host) {
        replyJson(response, 409, {
          error: {
            code: 'bad-request',
            message: 'this broker has its own windows and no web UI',
            hint: 'open Kubecred from its tray icon',
          },
        });
        return;
      }
      const webUi = await host.ensure();
      replyJson(response, 200, { url: webUi.newLink(await linkOrigin(peers.of(request.socket)?.pid)) });
    }),
  ];
}

/** The program that asked for a link, as the log names it. */
async function linkOrigin(pid: number | undefined): Promise<LinkOrigin> {
  if (pid === undefined) return { label: 'a client of the socket (pid unknown)', overSocket: true };
  const facts = await processFacts(pid);
  return {
    label: `${facts?.executable ? path.basename(facts.executable) : 'a program'} (pid ${pid})`,
    overSocket: true,
  };
}
