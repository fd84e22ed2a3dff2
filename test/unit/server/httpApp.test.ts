import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import http, { type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { currentPlatformEnv, resolveSocket } from '../../../src/main/platform/paths.js';
import path from 'node:path';
import { once } from 'node:events';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/main/core/brokerError.js';
import type { Logger } from '../../../src/main/core/logger.js';
import type { Route } from '../../../src/main/server/route.js';
import { httpApp } from '../../../src/main/server/httpApp.js';
import { HEADERS } from '../../../src/shared/api/routes.js';

// httpApp in process, served by node:http on a Unix socket in a temp dir: the client-secret
// check (the length test, then the constant-time compare), routing by path then method, path
// parameters, and every failure turned into an answer. The routes are fakes that record calls.
// The server keeps what each call of the app ended with: "never lets one crash the broker" is
// checked after every case (brokerServer.ts drops the promise, so a rejection is a crash).
const SECRET = 'c1ient-secret-0f3b6e2d9a7c41e8b5d0';
const BEARER = `Bearer ${SECRET}`;

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

let dir: string;
let socket: string;
let server: Server;
let appEnded: Array<Promise<string>> = [];
const calls: Array<{ route: string; method: string | undefined; params: string[] }> = [];
const logged: Array<{ message: string; fields: Record<string, unknown> | undefined }> = [];
const logger: Logger = {
  info: () => undefined,
  warn: () => undefined,
  error: (message, fields) => void logged.push({ message, fields }),
};

/** A route that records its call, then does `then` (answers 200 with its name when absent). */
function route(name: string, method: string, pattern: RegExp, then?: (response: http.ServerResponse) => void): Route {
  return {
    method,
    pattern,
    handler: async (request, response, params) => {
      calls.push({ route: name, method: request.method, params });
      if (then) return then(response);
      response.statusCode = 200;
      response.end(name);
    },
  };
}

const ROUTES: Route[] = [
  route('status', 'GET', /^\/v1\/status$/),
  route('secret-put', 'PUT', /^\/v1\/secrets\/([^/]+)\/([^/]+)$/),
  route('secret-delete', 'DELETE', /^\/v1\/secrets\/([^/]+)\/([^/]+)$/),
  route('locked', 'POST', /^\/v1\/locked$/, () => {
    throw new BrokerError('locked', 'the encrypted file is locked', 'run kubecred unlock', { kind: 'passphrase' });
  }),
  route('too-large', 'POST', /^\/v1\/too-large$/, () => {
    throw new BrokerError('too-large', 'the request body is over 64 KiB', 'send less');
  }),
  route('crash', 'GET', /^\/v1\/crash$/, () => {
    throw new TypeError('cannot read properties of undefined');
  }),
  route('half-sent', 'GET', /^\/v1\/half-sent$/, (response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.write('partial');
    throw new BrokerError('provider-failed', 'the provider failed after the answer began');
  }),
];

function call(
  method: string,
  url: string,
  headers: Record<string, string> = { authorization: BEARER },
  body?: string,
  agent: http.Agent | false = false,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = http.request({ socketPath: socket, path: url, method, headers, agent }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

const json = { authorization: BEARER, accept: 'application/json' };
/** A client that keeps connections open, as the CLI's does: only then does "connection: close" come from the app. */
const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kc-httpapp-'));
  // Where a broker of this home listens on this OS: a Unix socket, or a named pipe on Windows.
  socket = resolveSocket(dir, currentPlatformEnv());
  if (process.platform !== 'win32') await mkdir(path.dirname(socket), { recursive: true });
  const app = httpApp(ROUTES, SECRET, logger);
  server = http.createServer((request, response) => {
    appEnded.push(
      app(request, response).then(
        () => 'resolved',
        (error: Error) => `rejected: ${error.message}`,
      ),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, () => resolve());
  });
});

afterAll(async () => {
  keepAlive.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  calls.length = 0;
  logged.length = 0;
});

afterEach(async () => {
  const ended = await Promise.all(appEnded);
  appEnded = [];
  expect(ended.filter((outcome) => outcome !== 'resolved')).toEqual([]);
});

describe('httpApp: the client secret', () => {
  it('the right secret reaches the route', async () => {
    const reply = await call('GET', '/v1/status');
    expect([reply.status, reply.body]).toEqual([200, 'status']);
    expect(calls).toEqual([{ route: 'status', method: 'GET', params: [] }]);
  });

  it.each([
    ['no authorization header', {}],
    ['an empty one', { authorization: '' }],
    [
      'a wrong secret of the same length',
      { authorization: `Bearer ${SECRET.slice(0, -1)}${SECRET.endsWith('x') ? 'y' : 'x'}` },
    ],
    ['a shorter one (a prefix of the secret)', { authorization: BEARER.slice(0, -1) }],
    ['a longer one (the secret and more)', { authorization: `${BEARER}0` }],
    ['the secret alone, without "Bearer "', { authorization: SECRET }],
    ['another scheme\'s spelling ("bearer")', { authorization: `bearer ${SECRET}` }],
    ['the secret of another broker', { authorization: `Bearer ${randomBytes(SECRET.length / 2).toString('hex')}` }],
  ])('%s is refused with 401 unauthorized, and no route runs', async (_what, headers) => {
    const reply = await call('GET', '/v1/status', { ...headers, accept: 'application/json' });
    expect(reply.status).toBe(401);
    expect(JSON.parse(reply.body)).toEqual({
      error: {
        code: 'unauthorized',
        message: "the request did not carry this broker's client secret",
        hint: 'read it from <home>/run/client-secret and send "Authorization: Bearer <secret>"; it changes each time the broker starts',
      },
    });
    expect(reply.headers[HEADERS.exitCode]).toBe('1');
    expect(calls).toEqual([]);
  });

  it('a header as long as the secret in characters but not in bytes is 401, not a compare that throws (500)', async () => {
    // Latin-1 "é" is one character on the wire, two bytes once read as UTF-8.
    const reply = await call('GET', '/v1/status', {
      authorization: `Bearer ${SECRET.slice(0, -1)}\u00e9`,
      accept: 'application/json',
    });
    expect([reply.status, JSON.parse(reply.body).error.code]).toEqual([401, 'unauthorized']);
    expect(logged).toEqual([]);
  });

  it('is checked before routing: an unknown path without the secret is 401, never a 404 that says what exists', async () => {
    const reply = await call('GET', '/v1/no-such-thing', { accept: 'application/json' });
    expect(reply.status).toBe(401);
  });

  it('the refusal quotes nothing of what was sent', async () => {
    const planted = `Bearer planted-${SECRET.slice(8)}`;
    const reply = await call('GET', '/v1/status', { authorization: planted });
    expect(reply.status).toBe(401);
    expect(reply.body).toBe(
      'kubecred: the request did not carry this broker\'s client secret. Read it from <home>/run/client-secret and send "Authorization: Bearer <secret>"; it changes each time the broker starts\n',
    );
    expect(reply.body).not.toContain('planted-');
  });
});

describe('httpApp: routing', () => {
  it('an unknown path is 404 not-found naming the method and path (the query is not part of it)', async () => {
    const reply = await call('GET', '/v1/nothing-here?x=1', json);
    expect(reply.status).toBe(404);
    expect(JSON.parse(reply.body).error).toMatchObject({
      code: 'not-found',
      message: 'no such API: GET /v1/nothing-here',
    });
  });

  it('a very long unknown path is quoted only up to 200 characters', async () => {
    const reply = await call('GET', `/v1/${'a'.repeat(5000)}`, json);
    expect(reply.status).toBe(404);
    expect(JSON.parse(reply.body).error.message).toBe(`no such API: GET /v1/${'a'.repeat(196)}`);
  });

  it('a known path with another method is 400 bad-request naming the methods it takes', async () => {
    const reply = await call('PATCH', '/v1/secrets/prod/token', json);
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body).error).toEqual({
      code: 'bad-request',
      message: '/v1/secrets/prod/token does not take PATCH',
      hint: 'use PUT or DELETE',
    });
    expect(calls).toEqual([]);
  });

  it('one path, two methods: each reaches its own route; the query string is not routed on', async () => {
    expect((await call('PUT', '/v1/secrets/prod/token?ignored=1')).body).toBe('secret-put');
    expect((await call('DELETE', '/v1/secrets/prod/token')).body).toBe('secret-delete');
    expect(calls.map((c) => c.route)).toEqual(['secret-put', 'secret-delete']);
  });

  it("hands the route the pattern's groups as they were sent, still %-encoded", async () => {
    await call('PUT', '/v1/secrets/team%2Fprod/client-key');
    expect(calls).toEqual([{ route: 'secret-put', method: 'PUT', params: ['team%2Fprod', 'client-key'] }]);
  });

  it('a malformed %-escape in a parameter is 400 bad-request, and the route never runs', async () => {
    const reply = await call('DELETE', '/v1/secrets/%ff/token', json);
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body).error).toMatchObject({
      code: 'bad-request',
      message: 'the path has a malformed %-escape: %ff',
    });
    expect(calls).toEqual([]);
  });
});

describe('httpApp: failures become answers', () => {
  it("a BrokerError from a route keeps its code's status, hint and prompt header; the shim gets one line", async () => {
    const asJson = await call('POST', '/v1/locked', json);
    expect(asJson.status).toBe(423);
    expect(JSON.parse(asJson.body)).toEqual({
      error: { code: 'locked', message: 'the encrypted file is locked', hint: 'run kubecred unlock' },
    });
    expect([asJson.headers[HEADERS.exitCode], asJson.headers[HEADERS.prompt], asJson.headers['cache-control']]).toEqual(
      ['1', 'passphrase', 'no-store'],
    );

    const asLine = await call('POST', '/v1/locked');
    expect([asLine.status, asLine.headers['content-type'], asLine.body]).toEqual([
      423,
      'text/plain; charset=utf-8',
      'kubecred: the encrypted file is locked. Run kubecred unlock\n',
    ]);
    expect(logged).toEqual([]);
  });

  it('anything else a route throws is 500 internal, and logged with the path and the stack', async () => {
    const reply = await call('GET', '/v1/crash', json);
    expect(reply.status).toBe(500);
    expect(JSON.parse(reply.body).error).toEqual({
      code: 'internal',
      message: 'internal error: cannot read properties of undefined',
      hint: 'see the broker log; please report this',
    });
    expect(logged).toHaveLength(1);
    expect(logged[0]?.message).toBe('request failed');
    expect(logged[0]?.fields?.path).toBe('/v1/crash');
    expect(String(logged[0]?.fields?.reason)).toContain('TypeError: cannot read properties of undefined');
  });

  it("too-large from a route closes the connection after the answer; a route's other errors keep it open", async () => {
    // The whole (empty) body came with the head, so only the error's code can ask for the close.
    const whole = { ...json, 'content-length': '0' };
    const locked = await call('POST', '/v1/locked', whole, '', keepAlive);
    expect([locked.status, locked.headers.connection]).toEqual([423, 'keep-alive']);
    const reply = await call('POST', '/v1/too-large', whole, '', keepAlive);
    expect([reply.status, reply.headers.connection]).toEqual([413, 'close']);
  });

  it('a refusal while the body is still arriving closes the connection after the answer', async () => {
    const reply = await new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      const request = http.request(
        {
          socketPath: socket,
          path: '/v1/status',
          method: 'POST',
          headers: { 'transfer-encoding': 'chunked' },
          agent: keepAlive,
        },
        (response) => {
          response.resume();
          resolve({ status: response.statusCode ?? 0, connection: response.headers.connection });
          request.destroy();
        },
      );
      request.on('error', (error) =>
        (error as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(error),
      );
      request.write('first part of a body that never ends');
    });
    expect(reply).toEqual({ status: 401, connection: 'close' });
  });

  // KNOWN BUG (reported, not fixed here): replyError sets kubecred-exit-code before send() can
  // see that the head is already out, so setHeader throws ERR_HTTP_HEADERS_SENT out of httpApp's
  // catch; the app's promise rejects (brokerServer.ts drops it: the daemon exits) and the client
  // is left hanging. No shipped route fails after writing its head today. Drop `.fails` once fixed.
  it('a route that fails after its answer began: the connection is cut, and the app does not throw', async () => {
    const request = http.request({
      socketPath: socket,
      path: '/v1/half-sent',
      headers: { authorization: BEARER },
      agent: false,
    });
    request.on('error', () => undefined);
    request.end();
    try {
      const [response] = (await once(request, 'response')) as [http.IncomingMessage];
      expect(response.statusCode).toBe(200);
      // A cut answer ends in 'error' (aborted) and 'close'; a whole one in 'end' and 'close'.
      const closed = new Promise<void>((resolve) => {
        response.on('error', () => undefined);
        response.on('close', () => resolve());
      });
      response.resume();
      const ended = await Promise.all(appEnded.splice(0));
      expect(ended).toEqual(['resolved']);
      await closed;
      expect(response.complete).toBe(false);
    } finally {
      request.destroy();
    }
  });
});
