import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { asBrokerError, BrokerError } from '../core/brokerError.js';
import type { Logger } from '../core/logger.js';
import type { Route } from './route.js';
import { replyError, wantsJson } from './reply.js';

/** Authenticates, routes and turns every failure into a clear answer; never lets one crash the broker. */
export function httpApp(routes: Route[], clientSecret: string, logger: Logger) {
  const expected = Buffer.from(`Bearer ${clientSecret}`);
  return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    try {
      const given = Buffer.from(request.headers.authorization ?? '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new BrokerError(
          'unauthorized',
          "the request did not carry this broker's client secret",
          'read it from <home>/run/client-secret and send "Authorization: Bearer <secret>"; it changes each time the broker starts',
        );
      }
      const url = new URL(request.url ?? '/', 'http://broker');
      const matches = routes.filter((route) => route.pattern.test(url.pathname));
      if (matches.length === 0)
        throw new BrokerError(
          'not-found',
          `no such API: ${request.method} ${url.pathname.slice(0, 200)}`,
          'see docs/wire-protocol.md for the routes',
        );
      const route = matches.find((r) => r.method === request.method);
      if (!route) {
        throw new BrokerError(
          'bad-request',
          `${url.pathname} does not take ${request.method}`,
          `use ${matches.map((r) => r.method).join(' or ')}`,
        );
      }
      const params = route.pattern.exec(url.pathname)?.slice(1) ?? [];
      assertDecodable(params);
      await route.handler(request, response, params);
    } catch (error) {
      const failure = asBrokerError(error);
      if (failure.code === 'internal')
        logger.error('request failed', { path: request.url?.slice(0, 200), reason: (error as Error)?.stack });
      // An answer already begun cannot become an error: cut it, so the client sees it end short.
      if (response.headersSent) return void response.destroy();
      if (failure.code === 'too-large' || !request.complete) response.setHeader('connection', 'close');
      replyError(response, failure, wantsJson(request));
    }
  };
}

/** Routes decode their path parameters; a malformed escape (%ff) is the caller's mistake, not a crash. */
function assertDecodable(params: readonly string[]): void {
  for (const param of params) {
    try {
      decodeURIComponent(param);
    } catch {
      throw new BrokerError(
        'bad-request',
        `the path has a malformed %-escape: ${param.slice(0, 80)}`,
        'percent-encode names as UTF-8 (encodeURIComponent)',
      );
    }
  }
}
