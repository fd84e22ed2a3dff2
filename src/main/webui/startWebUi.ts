import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { z } from 'zod';
import { systemClock } from '../core/clock.js';
import type { WebUiState } from '../../shared/api/webUiApi.js';
import { isUiPath, matchUiOperation, UI_API_PREFIX, UI_OPERATIONS } from '../../shared/api/uiContract.js';
import { CHALLENGE_HEADER, isChallenge } from '../../shared/api/sessionProof.js';
import { EventStream } from './eventStream.js';
import { checkOrigin, SECURITY_HEADERS } from './requestGuard.js';
import { SessionKeeper, type LinkOrigin } from './sessionKeeper.js';
import { readStatic } from './staticFiles.js';
import { WindowAuthorization } from './windowAuthorization.js';
import type { WebUi, WebUiOptions } from './webUiPorts.js';
import { HttpFailure, toFailure } from './httpFailure.js';
import { readJsonBody } from '../http/readJsonBody.js';
import { STREAMED, uiHandlers, type UiAnswer, type UiCall } from './uiHandlers.js';
import { currentLayout } from '../platform/shimLocation.js';
import { fromAnotherUser } from '../platform/loopbackPeerUid.js';
import { LineBudget } from '../core/lineBudget.js';

const MAX_BODY_BYTES = 16 * 1024;
// Any local user can connect to 127.0.0.1: a few pages need a few connections, and a flood of
// idle ones must be dropped long before the broker runs out of descriptors.
const MAX_CONNECTIONS = 64;
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
// Enough of a refused path to recognise a stray page; the rest is a stranger's bytes.
const LOGGED_PATH_CHARS = 32;
const REFUSAL_LINES_PER_MINUTE = 5;

/**
 * The headless broker's window: the built renderer and a small JSON API on 127.0.0.1, for
 * the system browser. Only the page that traded the link's one-time token holds a session
 * (a bearer secret in its sessionStorage); any other Host or Origin is refused first, so
 * neither DNS rebinding nor another site's page can reach the API.
 */
export async function startWebUi(options: WebUiOptions): Promise<WebUi> {
  const { ports } = options;
  const rendererDir = options.rendererDir ?? defaultRendererDir();
  const log = options.log ?? (() => {});
  const clock = options.clock ?? systemClock;
  const sessions = new SessionKeeper(clock, options.sessionLimits);
  // Any local user can send refused requests as fast as they like: a few lines per reason a
  // minute (a stray page makes one or two at a time, and each should show), then a count.
  const refusals = new LineBudget(() => clock.now(), REFUSAL_LINES_PER_MINUTE);
  const loginErrors = new Map<string, string>();
  const snapshot = async (): Promise<WebUiState> => ({
    profiles: await ports.profiles(),
    // A registry list that cannot be read (a broken config) must not blank the profiles.
    registries: (await ports.registries?.().catch(() => [])) ?? [],
    interactions: ports.interactions(),
    prompts: ports.prompts.list(),
    configError: (await ports.configError?.().catch(() => null)) ?? null,
    loginErrors: Object.fromEntries(loginErrors),
  });
  const stream = new EventStream(snapshot);
  const unsubscribe = [ports.onChange(() => stream.changed()), ports.prompts.onChange(() => stream.changed())];
  const refresh = setInterval(() => stream.changed(), options.refreshMs ?? 30_000);
  refresh.unref();
  let port = 0;

  const send = (response: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}) => {
    response.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', ...extra });
    response.end(JSON.stringify(body));
  };

  const handlers = uiHandlers({ ports, sessions, stream, snapshot, loginErrors, log });

  const route = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    const method = request.method ?? 'GET';
    const refusal = checkOrigin(request.headers, port, { method, path });
    if (refusal) {
      const dropped = refusals.admit(refusal.reason);
      if (dropped !== undefined)
        log(
          `web UI: refused ${method} ${path.slice(0, LOGGED_PATH_CHARS)}: ${refusal.reason}` +
            (dropped ? ` (and ${dropped} more refused for this reason since the last such line)` : ''),
        );
      throw new HttpFailure(refusal.status, 'unauthorized', `request refused: ${refusal.reason}`);
    }

    if (!path.startsWith(UI_API_PREFIX)) {
      if (method !== 'GET' && method !== 'HEAD') throw new HttpFailure(405, 'bad-request', 'method not allowed');
      const file = await readStatic(rendererDir, path);
      if (!file) throw new HttpFailure(404, 'not-found', `no such page: ${path}`);
      response.writeHead(200, { ...SECURITY_HEADERS, 'content-type': file.type });
      response.end(method === 'HEAD' ? undefined : file.body);
      return;
    }

    const matched = matchUiOperation(method, path);
    if (!matched)
      throw isUiPath(path)
        ? new HttpFailure(405, 'bad-request', 'method not allowed')
        : new HttpFailure(404, 'not-found', `no such API: ${path}`);
    const { operation, params } = matched;
    const authorization = request.headers.authorization;
    const challenge = request.headers[CHALLENGE_HEADER];
    // Every operation but trading a link's token and proving a session needs a live session.
    const open = operation === 'openSession' || operation === 'proveSession';
    const session = open ? undefined : sessions.admit(authorization);
    if (!open && !session)
      throw new HttpFailure(
        401,
        'unauthorized',
        'this page has no session, or its session has ended',
        'run kubecred ui for a new link',
      );
    const { request: bodySchema } = UI_OPERATIONS[operation] as { request?: z.ZodType };
    // Only JSON bodies: a cross-site form cannot send them without a CORS preflight we never grant.
    if (bodySchema && !request.headers['content-type']?.startsWith('application/json'))
      throw new HttpFailure(415, 'bad-request', 'send JSON');
    const body = await readBody(request, bodySchema);
    const handler = handlers[operation] as (call: UiCall<typeof operation>) => Promise<UiAnswer<typeof operation>>;
    const answer = await handler({
      params: params as UiCall<typeof operation>['params'],
      body: body as never,
      origin: session?.origin,
      authorization,
      proof: { key: session?.proofKey, challenge: isChallenge(challenge) ? challenge : undefined },
      response,
    });
    if (answer !== STREAMED) send(response, answer.status, answer.body);
  };

  const server = createServer(
    { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 1_000 },
    (request, response) => {
      route(request, response).catch((error: unknown) => {
        const failure = toFailure(error);
        if (response.headersSent) return void response.end();
        const { code, message, hint, field } = failure;
        send(response, failure.status, {
          error: { code, message, ...(hint ? { hint } : {}), ...(field ? { field } : {}) },
        });
      });
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  server.maxConnections = MAX_CONNECTIONS;
  // Another user's connection is closed before the HTTP server sees it: otherwise a stranger
  // holding 64 half-sent requests locks the user out of approvals and PINs.
  server.prependListener('connection', (socket: Socket) => {
    if (fromAnotherUser(socket)) socket.destroy();
  });
  // After listen, an error (EMFILE on accept, say) must be logged, never crash the broker.
  server.on('error', (error) => log(`web UI: server error: ${error.message}`));
  server.on('clientError', (_error, socket) => socket.destroy());
  const link = (origin: LinkOrigin) => `http://127.0.0.1:${port}/#token=${sessions.newLinkToken(origin)}`;

  const windows = new WindowAuthorization(sessions, `http://127.0.0.1:${port}`);

  return {
    url: link({ label: 'the broker at its start' }),
    origin: windows.origin,
    windowRequestHeaders: (url) => windows.headersFor(url),
    newLink: link,
    openPages: (filter) => (filter?.approving ? stream.approvers : stream.listeners),
    close: async () => {
      clearInterval(refresh);
      sessions.endAll();
      for (const off of unsubscribe) off();
      stream.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

async function readBody(request: IncomingMessage, schema?: z.ZodType): Promise<unknown> {
  if (!schema) {
    request.resume();
    return undefined;
  }
  const json = await readJsonBody(request, MAX_BODY_BYTES, {});
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    throw new HttpFailure(400, 'bad-request', `bad request: ${parsed.error.issues[0]?.message ?? 'invalid body'}`);
  return parsed.data;
}

/** The built renderer of this install's layout (the checkout's dist/renderer from the sources). */
function defaultRendererDir(): string {
  return currentLayout().rendererDir;
}
