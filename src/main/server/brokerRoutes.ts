import { secretSourceEnvironment } from '../../shared/api/secretSourceVariables.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import { credentialRequestSchema } from '../../shared/api/credentialRequest.js';
import { HEADERS, ROUTE_PATTERNS, ROUTES } from '../../shared/api/routes.js';
import {
  loginSecretSchema,
  mfaCodeSchema,
  passphraseSchema,
  pinSchema,
  secretWriteSchema,
  type BrokerStatus,
} from '../../shared/api/status.js';
import {
  dockerServerCallSchema,
  dockerStoreCallSchema,
  providerCallSchema,
} from '../../shared/registry/registryRequests.js';
import { asBrokerError, BrokerError } from '../core/brokerError.js';
import type { BrokerServices } from '../broker/brokerServices.js';
import { PeerCredentialReader } from '../platform/peerCredentials.js';
import { readJsonBody } from '../http/readJsonBody.js';
import { replyError, replyJson, send, wantsJson } from './reply.js';
import { verifiedParentPid, type CallerWitnesses } from './verifiedCaller.js';
import { PipeCallerVerifier } from '../platform/pipeCaller.js';
import { followNotices, type NoticeSources } from './callerNotices.js';
import { NOTICE_HEADERS } from '../../shared/api/notices.js';
import { sendNotice } from './notice.js';

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
export function brokerRoutes(
  {
    credentials: broker,
    admin,
    interactions,
    registries,
    proxies,
    mfaCodes,
    loginSecrets,
    keychainFailure,
    restoreLiveRefreshTokens,
  }: BrokerServices,
  identity: ServerIdentity,
  witnesses: CallerWitnesses = { peers: new PeerCredentialReader(), pipes: new PipeCallerVerifier() },
  questions?: NoticeSources['prompts'],
): Route[] {
  return [
    ...registryRoutes(registries, witnesses),
    {
      method: 'POST',
      pattern: exact(ROUTES.credential),
      handler: async (request, response) => {
        const body = credentialRequestSchema.safeParse(await readJsonBody(request));
        if (!body.success) throw invalidBody(body.error.issues[0]);
        let credential: string;
        const profile = body.data.argv[0] === 'credential' ? body.data.argv[1] : undefined;
        const stopNotices =
          profile && request.headers[NOTICE_HEADERS.accept] === '1'
            ? followNotices(profile, { logins: interactions, ...(questions ? { prompts: questions } : {}) }, (text) =>
                sendNotice(response, text),
              )
            : undefined;
        try {
          // Approvals and the audit trail name the caller the kernel knows, not the one the body claims.
          const parentPid = await verifiedParentPid(request, response, body.data.parentPid, witnesses);
          const { parentPid: _claimed, ...rest } = body.data;
          credential = await broker.credential({ ...rest, ...(parentPid !== undefined ? { parentPid } : {}) });
        } catch (error) {
          const fromTerminal = body.data.stdinIsTerminal && body.data.client === 'shim';
          replyError(response, asBrokerError(error), wantsJson(request), fromTerminal);
          return;
        } finally {
          stopNotices?.();
        }
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
          registries: await registries.summaries().catch(() => []),
          interactions: interactions.list(),
          keychainError: keychainFailure(),
          secretSources: secretSourceEnvironment(process.env),
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
      pattern: ROUTE_PATTERNS.secret,
      handler: async (request, response, [profile = '', field = '']) => {
        const body = secretWriteSchema.safeParse(await readJsonBody(request, 300 * 1024));
        if (!body.success) throw invalidBody(body.error.issues[0]);
        await broker.setSecret(decodeURIComponent(profile), decodeURIComponent(field), body.data.value);
        response.statusCode = 204;
        response.end();
      },
    },
    {
      method: 'GET',
      pattern: ROUTE_PATTERNS.secrets,
      handler: async (_request, response, [profile = '']) =>
        replyJson(response, 200, await broker.listSecrets(decodeURIComponent(profile))),
    },
    {
      method: 'POST',
      pattern: ROUTE_PATTERNS.profileAction,
      handler: async (_request, response, [profile = '', action]) => {
        const name = decodeURIComponent(profile);
        if (action === 'login') replyJson(response, 200, { profile: name, ...(await broker.login(name)) });
        else if (action === 'refresh') replyJson(response, 200, { profile: name, ...(await broker.refresh(name)) });
        else {
          await broker.logout(name);
          replyJson(response, 200, { profile: name, loggedOut: true });
        }
      },
    },
    // An MFA code typed in a terminal: it opens the profile's AWS session now, so the retry is served from memory.
    typedAnswerRoute(ROUTE_PATTERNS.profileMfa, mfaCodeSchema, (body) => body.code, mfaCodes, broker),
    // A Keystone secret typed in a terminal: the login runs now with it, so the retry is served from the cache.
    typedAnswerRoute(ROUTE_PATTERNS.profileLoginSecret, loginSecretSchema, (body) => body.secret, loginSecrets, broker),
    {
      method: 'POST',
      pattern: exact(ROUTES.importLiveRefreshTokens),
      handler: async (_request, response) => replyJson(response, 200, { users: await restoreLiveRefreshTokens() }),
    },
    {
      method: 'POST',
      pattern: exact(ROUTES.unlock),
      handler: async (request, response) => {
        const body = passphraseSchema.safeParse(await readJsonBody(request));
        if (!body.success) throw invalidBody(body.error.issues[0]);
        replyJson(response, 200, await admin.unlock(body.data.passphrase));
      },
    },
    {
      method: 'POST',
      pattern: exact(ROUTES.lock),
      handler: async (_request, response) => {
        await admin.lockAll();
        replyJson(response, 200, { locked: true });
      },
    },
    {
      method: 'GET',
      pattern: exact(ROUTES.proxyCa),
      handler: async (_request, response) =>
        replyJson(response, 200, { certificatePem: await proxies.caCertificate() }),
    },
    {
      method: 'GET',
      pattern: exact(ROUTES.proxyStatus),
      handler: async (_request, response) => replyJson(response, 200, await proxies.status()),
    },
    {
      method: 'GET',
      pattern: exact(ROUTES.tokens),
      handler: async (_request, response) => replyJson(response, 200, { tokens: await admin.listTokens() }),
    },
    {
      method: 'POST',
      pattern: ROUTE_PATTERNS.tokenAction,
      handler: async (request, response, [token = '', action]) => {
        const name = decodeURIComponent(token);
        if (action === 'login') {
          const body = pinSchema.safeParse(await readJsonBody(request));
          if (!body.success) throw invalidBody(body.error.issues[0]);
          await admin.login(name, body.data.pin);
        } else {
          await admin.logout(name);
        }
        replyJson(response, 200, { token: name, loggedIn: action === 'login' });
      },
    },
    {
      method: 'DELETE',
      pattern: ROUTE_PATTERNS.secret,
      handler: async (_request, response, [profile = '', field = '']) => {
        const deleted = await broker.deleteSecret(decodeURIComponent(profile), decodeURIComponent(field));
        replyJson(response, 200, { deleted });
      },
    },
  ];
}

/** The kubelet credential provider and the docker credential helper (docs/registry.md). */
function registryRoutes(registries: BrokerServices['registries'], witnesses: CallerWitnesses): Route[] {
  const { registry: paths } = ROUTES;
  return [
    postRoute(paths.credentialProvider, providerCallSchema, async (body, request, response) =>
      registries.providerResponse(body.request, {
        client: 'kubelet',
        parentPid: await verifiedParentPid(request, response, body.parentPid, witnesses),
      }),
    ),
    postRoute(paths.dockerGet, dockerServerCallSchema, async (body, request, response) => ({
      credentials: await registries.dockerGet(body.serverUrl, {
        client: 'docker-helper',
        parentPid: await verifiedParentPid(request, response, body.parentPid, witnesses),
      }),
    })),
    postRoute(paths.dockerStore, dockerStoreCallSchema, (body) => registries.dockerStore(body.input)),
    postRoute(paths.dockerErase, dockerServerCallSchema, (body) => registries.dockerErase(body.serverUrl)),
    {
      method: 'GET',
      pattern: exact(paths.dockerList),
      handler: async (_request, response) => replyJson(response, 200, await registries.dockerList()),
    },
  ];
}

/** A POST whose body the schema checks; a string answer is sent as it is (already JSON). */
function postRoute<T>(
  path: string,
  schema: z.ZodType<T>,
  answer: (body: T, request: IncomingMessage, response: ServerResponse) => Promise<unknown>,
): Route {
  return {
    method: 'POST',
    pattern: exact(path),
    handler: async (request, response) => {
      const body = schema.safeParse(await readJsonBody(request));
      if (!body.success) throw invalidBody(body.error.issues[0]);
      const result = await answer(body.data, request, response);
      if (typeof result === 'string') send(response, 200, 'application/json', result);
      else replyJson(response, 200, result);
    },
  };
}

/**
 * An answer typed in a terminal for a profile's next question: offered to the provider, which
 * takes it instead of asking, and used at once (a refresh), so the caller's retry is served.
 */
function typedAnswerRoute<T>(
  pattern: RegExp,
  schema: z.ZodType<T>,
  answerOf: (body: T) => string,
  offered: { offer(profile: string, value: string): Promise<void> },
  broker: BrokerServices['credentials'],
): Route {
  return {
    method: 'POST',
    pattern,
    handler: async (request, response, [profile = '']) => {
      const body = schema.safeParse(await readJsonBody(request));
      if (!body.success) throw invalidBody(body.error.issues[0]);
      const name = decodeURIComponent(profile);
      // Refuses a profile that is not configured or never asks for this answer, before keeping it or refreshing.
      await offered.offer(name, answerOf(body.data));
      replyJson(response, 200, { profile: name, ...(await broker.refresh(name)) });
    },
  };
}

/** A matcher for one fixed path of ROUTES. */
export function exact(path: string): RegExp {
  return new RegExp(`^${path.replace(/[/.]/g, '\\$&')}$`);
}

function invalidBody(issue: { path: PropertyKey[]; message: string } | undefined): BrokerError {
  const where = issue?.path.length ? `${issue.path.map(String).join('.')}: ` : '';
  return new BrokerError(
    'bad-request',
    `the request body is invalid (${where}${issue?.message ?? 'unknown problem'})`,
    'see docs/wire-protocol.md for the request format',
  );
}

export type { Route };
