import type { IncomingMessage, ServerResponse } from 'node:http';
import { credentialRequestSchema } from '../../shared/api/credentialRequest.js';
import { HEADERS, ROUTES } from '../../shared/api/routes.js';
import { secretWriteSchema, type BrokerStatus } from '../../shared/api/status.js';
import { BrokerError } from '../broker/brokerError.js';
import type { CredentialBroker } from '../broker/credentialBroker.js';
import { readJsonBody } from './readBody.js';
import { replyJson, send } from './reply.js';

export interface ServerIdentity {
  readonly version: string;
  readonly home: string;
  readonly socket: string;
  readonly configPath: string;
}

type Handler = (request: IncomingMessage, response: ServerResponse, params: string[]) => Promise<void>;

interface Route {
  readonly method: string;
  readonly pattern: RegExp;
  readonly handler: Handler;
}

/** The broker's HTTP routes (docs/wire-protocol.md); every input is validated with zod. */
export function brokerRoutes(broker: CredentialBroker, identity: ServerIdentity): Route[] {
  return [
    {
      method: 'POST',
      pattern: exact(ROUTES.credential),
      handler: async (request, response) => {
        const body = credentialRequestSchema.safeParse(await readJsonBody(request));
        if (!body.success) throw invalidBody(body.error.issues[0]);
        const credential = await broker.credential(body.data);
        response.setHeader(HEADERS.exitCode, '0');
        send(response, 200, 'application/json', credential);
      },
    },
    {
      method: 'GET',
      pattern: exact(ROUTES.status),
      handler: async (_request, response) => {
        const status: BrokerStatus = {
          version: identity.version,
          pid: process.pid,
          home: identity.home,
          socket: identity.socket,
          configPath: identity.configPath,
          configError: await broker.configError(),
          profiles: await broker.profiles(),
        };
        replyJson(response, 200, status);
      },
    },
    {
      method: 'GET',
      pattern: exact(ROUTES.profiles),
      handler: async (_request, response) => replyJson(response, 200, { profiles: await broker.profiles() }),
    },
    {
      method: 'PUT',
      pattern: /^\/v1\/secrets\/([^/]+)\/([^/]+)$/,
      handler: async (request, response, [profile = '', field = '']) => {
        const body = secretWriteSchema.safeParse(await readJsonBody(request, 300 * 1024));
        if (!body.success) throw invalidBody(body.error.issues[0]);
        await broker.setSecret(decodeURIComponent(profile), decodeURIComponent(field), body.data.value);
        response.statusCode = 204;
        response.end();
      },
    },
    {
      method: 'DELETE',
      pattern: /^\/v1\/secrets\/([^/]+)\/([^/]+)$/,
      handler: async (_request, response, [profile = '', field = '']) => {
        const deleted = await broker.deleteSecret(decodeURIComponent(profile), decodeURIComponent(field));
        replyJson(response, 200, { deleted });
      },
    },
  ];
}

function exact(path: string): RegExp {
  return new RegExp(`^${path.replace(/[/.]/g, '\\$&')}$`);
}

function invalidBody(issue: { path: PropertyKey[]; message: string } | undefined): BrokerError {
  const where = issue?.path.length ? `${issue.path.map(String).join('.')}: ` : '';
  return new BrokerError('bad-request', `the request body is invalid (${where}${issue?.message ?? 'unknown problem'})`, 'see docs/wire-protocol.md for the request format');
}

export type { Route };
