import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { z } from 'zod';
import { systemClock } from '../broker/clock.js';
import { importRequestSchema, newProfileRequestSchema, profileChangesSchema, promptAnswerSchema, sessionRequestSchema, startAtLoginRequestSchema, tokenChangesSchema, WEB_UI_ROUTES, type PendingPrompt, type WebUiState } from '../../shared/api/prompts.js';
import { EventStream } from './eventStream.js';
import { checkOrigin, SECURITY_HEADERS } from './requestGuard.js';
import { SessionKeeper, type LinkOrigin } from './sessionKeeper.js';
import { readStatic } from './staticFiles.js';
import type { WebUi, WebUiOptions } from './webUiPorts.js';
import { secretWriteSchema } from '../../shared/api/status.js';
import { currentLayout } from '../platform/shimLocation.js';

const MAX_BODY_BYTES = 16 * 1024;
// Any local user can connect to 127.0.0.1: a few pages need a few connections, and a flood of
// idle ones must be dropped long before the broker runs out of descriptors.
const MAX_CONNECTIONS = 64;
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly hint?: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

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
  const sessions = new SessionKeeper(options.clock ?? systemClock, options.sessionLimits);
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
  const importer = () => {
    if (!ports.kubeconfigImport) throw new HttpFailure(404, 'not-found', 'this shell cannot import kubeconfigs', 'run kubecred import in a terminal');
    return ports.kubeconfigImport;
  };

  const send = (response: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}) => {
    response.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', ...extra });
    response.end(JSON.stringify(body));
  };

  const route = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const refusal = checkOrigin(request.headers, port);
    if (refusal) {
      log(`web UI: refused ${request.method} ${request.url}: ${refusal.reason}`);
      throw new HttpFailure(refusal.status, 'unauthorized', `request refused: ${refusal.reason}`);
    }
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    const method = request.method ?? 'GET';

    if (!path.startsWith('/api/')) {
      if (method !== 'GET' && method !== 'HEAD') throw new HttpFailure(405, 'bad-request', 'method not allowed');
      const file = await readStatic(rendererDir, path);
      if (!file) throw new HttpFailure(404, 'not-found', `no such page: ${path}`);
      response.writeHead(200, { ...SECURITY_HEADERS, 'content-type': file.type });
      response.end(method === 'HEAD' ? undefined : file.body);
      return;
    }

    if (method === 'POST' && path === WEB_UI_ROUTES.session) {
      const { token } = await readBody(request, sessionRequestSchema);
      const session = sessions.exchange(token);
      if (!session) throw new HttpFailure(401, 'unauthorized', 'this link was used already or has expired', 'run kubecred ui for a new link');
      log(`web UI: a session opened from the link of ${session.origin.label}`);
      send(response, 200, { session: session.secret });
      return;
    }
    const authorization = request.headers.authorization;
    const session = sessions.admit(authorization);
    if (!session) throw new HttpFailure(401, 'unauthorized', 'this page has no session, or its session has ended', 'run kubecred ui for a new link');
    if (method === 'POST' && path === WEB_UI_ROUTES.endSession) {
      sessions.end(authorization);
      return send(response, 200, {});
    }

    if (method === 'GET' && path === WEB_UI_ROUTES.state) return send(response, 200, await snapshot());
    if (method === 'GET' && path === WEB_UI_ROUTES.events) return stream.add(response, SECURITY_HEADERS, () => sessions.admit(authorization) !== undefined);
    if (method === 'GET' && path === WEB_UI_ROUTES.audit) return send(response, 200, { records: await ports.auditLog() });
    if (method === 'GET' && path === WEB_UI_ROUTES.tokens) return send(response, 200, { tokens: await ports.tokens() });
    if (method === 'GET' && path === WEB_UI_ROUTES.preferences) return send(response, 200, await ports.preferences());
    if (method === 'GET' && path === WEB_UI_ROUTES.kubeconfigImport) return send(response, 200, await importer().preview());
    const config = /^\/api\/profiles\/([^/]+)\/config$/.exec(path);
    if (method === 'GET' && config) return send(response, 200, { profile: await ports.profileConfig(decodeURIComponent(config[1]!)) });
    if (method !== 'POST') throw new HttpFailure(405, 'bad-request', 'method not allowed');
    // Only JSON bodies: a cross-site form cannot send them without a CORS preflight we never grant.
    if (!request.headers['content-type']?.startsWith('application/json')) throw new HttpFailure(415, 'bad-request', 'send JSON');

    if (path === WEB_UI_ROUTES.profiles) {
      await ports.addProfile(await readBody(request, newProfileRequestSchema));
      stream.changed();
      return send(response, 201, {});
    }
    if (path === WEB_UI_ROUTES.kubeconfigImport) {
      const result = await importer().apply((await readBody(request, importRequestSchema)).fingerprint);
      stream.changed();
      return send(response, 200, result);
    }
    if (path === WEB_UI_ROUTES.startAtLogin) {
      await ports.setStartAtLogin((await readBody(request, startAtLoginRequestSchema)).enabled);
      return send(response, 200, {});
    }
    const tokenUpdate = /^\/api\/tokens\/([^/]+)\/update$/.exec(path);
    if (tokenUpdate) {
      await ports.updateToken(decodeURIComponent(tokenUpdate[1]!), await readBody(request, tokenChangesSchema));
      return send(response, 200, {});
    }
    const secret = /^\/api\/profiles\/([^/]+)\/secrets\/([^/]+)$/.exec(path);
    if (secret) {
      const profile = decodeURIComponent(secret[1]!);
      const field = decodeURIComponent(secret[2]!);
      await ports.storeSecret(profile, field, (await readBody(request, secretWriteSchema)).value);
      log(`web UI: stored ${profile}/${field}`);
      stream.changed();
      return send(response, 200, {});
    }
    const update = /^\/api\/profiles\/([^/]+)\/update$/.exec(path);
    if (update) {
      await ports.updateProfile(decodeURIComponent(update[1]!), await readBody(request, profileChangesSchema));
      stream.changed();
      return send(response, 200, {});
    }
    const action = /^\/api\/profiles\/([^/]+)\/(login|logout|remove|cancel-login)$/.exec(path);
    if (action) {
      const profile = decodeURIComponent(action[1]!);
      await readBody(request);
      if (action[2] === 'remove') {
        await ports.removeProfile(profile);
        stream.changed();
        return send(response, 200, {});
      }
      if (action[2] === 'cancel-login') {
        // The login's own failure (cancelled) reaches the page on the stream, like any outcome.
        await ports.cancelLogin(profile);
        stream.changed();
        return send(response, 200, {});
      }
      if (action[2] === 'logout') {
        await ports.logout(profile);
        stream.changed();
        return send(response, 200, {});
      }
      // A login can wait minutes on the user's browser; the page follows it on the stream,
      // and its failure goes there too: a click that ends in silence looks like a broken button.
      loginErrors.delete(profile);
      Promise.resolve()
        .then(() => ports.login(profile))
        .then(
        () => stream.changed(),
        (error: Error & { hint?: string }) => {
          log(`web UI: login of ${profile} failed: ${error.message}`);
          loginErrors.set(profile, error.hint ? `${error.message}: ${error.hint}` : error.message);
          stream.changed();
        },
      );
      stream.changed();
      return send(response, 202, {});
    }
    const prompt = /^\/api\/prompts\/([^/]+)$/.exec(path);
    if (prompt) {
      const answer = await readBody(request, promptAnswerSchema);
      const id = decodeURIComponent(prompt[1]!);
      if (answer.kind === 'approval' && answer.allow) refuseSelfApproval(ports.prompts.list().find((p) => p.id === id), session.origin);
      if (!ports.prompts.answer(id, answer)) throw new HttpFailure(404, 'not-found', 'that question was answered or timed out');
      if (answer.kind === 'approval') log(`web UI: approval ${answer.allow ? 'given' : 'refused'} in a session opened from the link of ${session.origin.label}`);
      return send(response, 200, {});
    }
    throw new HttpFailure(404, 'not-found', `no such API: ${path}`);
  };

  const server = createServer({ headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 1_000 }, (request, response) => {
    route(request, response).catch((error: unknown) => {
      const failure = error instanceof HttpFailure ? error : toFailure(error);
      if (response.headersSent) return void response.end();
      const { code, message, hint, field } = failure;
      send(response, failure.status, { error: { code, message, ...(hint ? { hint } : {}), ...(field ? { field } : {}) } });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  server.maxConnections = MAX_CONNECTIONS;
  // After listen, an error (EMFILE on accept, say) must be logged, never crash the broker.
  server.on('error', (error) => log(`web UI: server error: ${error.message}`));
  server.on('clientError', (_error, socket) => socket.destroy());
  const link = (origin: LinkOrigin) => `http://127.0.0.1:${port}/#token=${sessions.newLinkToken(origin)}`;

  return {
    url: link({ label: 'the broker at its start', ancestry: [] }),
    newLink: link,
    openPages: () => stream.listeners,
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

/**
 * A program that waits on an approval must not be the one that opened the page answering it
 * (it asked the socket for a link, then clicked Allow itself). Approval is a tripwire against
 * same-user programs, not a wall (they can read the keychain too), but this one costs nothing.
 */
function refuseSelfApproval(prompt: PendingPrompt | undefined, origin: LinkOrigin): void {
  if (prompt?.kind !== 'approval') return;
  if (prompt.callers.some((caller) => caller.pid !== undefined && origin.ancestry.includes(caller.pid))) {
    throw new HttpFailure(403, 'denied', 'the program waiting on this approval opened this page itself, so it cannot approve its own request', 'approve it in a Kubecred window you opened yourself (kubecred ui)');
  }
}

/** The broker's own errors keep their code, message, hint and field; anything else stays vague. */
function toFailure(error: unknown): HttpFailure {
  const e = error as { code?: unknown; message?: unknown; httpStatus?: unknown; hint?: unknown; field?: unknown };
  if (typeof e?.code === 'string' && typeof e.message === 'string' && typeof e.httpStatus === 'number') {
    return new HttpFailure(e.httpStatus, e.code, e.message, typeof e.hint === 'string' ? e.hint : undefined, typeof e.field === 'string' ? e.field : undefined);
  }
  return new HttpFailure(500, 'internal', 'internal error: see the broker log');
}

async function readBody<T>(request: IncomingMessage, schema?: z.ZodType<T>): Promise<T> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpFailure(413, 'too-large', 'request body too large');
    chunks.push(chunk);
  }
  if (!schema) return undefined as T;
  let json: unknown;
  try {
    json = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  } catch {
    throw new HttpFailure(400, 'bad-request', 'the body is not JSON');
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new HttpFailure(400, 'bad-request', `bad request: ${parsed.error.issues[0]?.message ?? 'invalid body'}`);
  return parsed.data;
}

/** The built renderer of this install's layout (the checkout's dist/renderer from the sources). */
function defaultRendererDir(): string {
  return currentLayout().rendererDir;
}
