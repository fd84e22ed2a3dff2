import { secretSourceEnvironment } from '../../shared/api/secretSourceVariables.js';
import { NOTICE_HEADERS } from '../../shared/api/notices.js';
import { followNotices } from './callerNotices.js';
import { sendNotice } from './notice.js';
import { BROKER_OPERATIONS, type BrokerOperation, type BrokerResponse } from '../../shared/api/routes.js';
import type { BrokerServices } from '../broker/brokerServices.js';
import { PeerCredentialReader } from '../platform/peerCredentials.js';
import { PipeCallerVerifier } from '../platform/pipeCaller.js';
import { replyJson } from './reply.js';
import type { CallerWitnesses } from './verifiedCaller.js';
import type { NoticeSources } from './callerNotices.js';
import { credentialHandler } from './credentialHandler.js';
import { guardHandler, socketAsker } from './guardHandler.js';
import { ProcessCallerInfo } from '../platform/processInfo.js';
import { registryHandlers } from './registryHandlers.js';
import { operationRoute, type BrokerCall, type BrokerHandlers, type Route } from './route.js';

export interface ServerIdentity {
  readonly version: string;
  readonly home: string;
  readonly socket: string;
  readonly configPath: string;
}

/** Served by their hosts beside these routes: stop by the broker's start (stopRoute.ts), the web UI link by the web UI host. */
const HOSTED = ['stop', 'webUiLink'] as const satisfies readonly BrokerOperation[];
type ServedHere = Exclude<BrokerOperation, (typeof HOSTED)[number]>;
type ServedHandlers = Omit<BrokerHandlers, (typeof HOSTED)[number]>;

/** The broker's HTTP routes (docs/wire-protocol.md), in the order of BROKER_OPERATIONS. */
export function brokerRoutes(
  services: BrokerServices,
  identity: ServerIdentity,
  witnesses: CallerWitnesses = { peers: new PeerCredentialReader(), pipes: new PipeCallerVerifier() },
  questions?: NoticeSources['prompts'],
): Route[] {
  const handlers = brokerHandlers(services, identity, witnesses, questions);
  return (Object.keys(BROKER_OPERATIONS) as BrokerOperation[])
    .filter((operation): operation is ServedHere => !(HOSTED as readonly BrokerOperation[]).includes(operation))
    .map((operation) => routeOf(handlers, operation));
}

function routeOf<O extends ServedHere>(handlers: ServedHandlers, operation: O): Route {
  return operationRoute(operation, handlers[operation]);
}

function brokerHandlers(
  {
    credentials: broker,
    admin,
    interactions,
    registries,
    proxies,
    guards,
    profiles,
    mfaCodes,
    loginSecrets,
    keychainFailure,
    restoreLiveRefreshTokens,
  }: BrokerServices,
  identity: ServerIdentity,
  witnesses: CallerWitnesses,
  questions: NoticeSources['prompts'] | undefined,
): ServedHandlers {
  /**
   * An answer typed in a terminal for a profile's next question: offered to the provider, which
   * takes it instead of asking, and used at once (a refresh), so the caller's retry is served.
   */
  const typedAnswer = async (
    { params: { profile }, response }: BrokerCall<'mfaCode' | 'loginSecret'>,
    offered: { offer(profile: string, value: string): Promise<void> },
    value: string,
  ) => {
    // Refuses a profile that is not configured or never asks for this answer, before keeping it or refreshing.
    await offered.offer(profile, value);
    replyJson(response, 200, { profile, ...(await broker.refresh(profile)) });
  };
  return {
    credential: credentialHandler(broker, witnesses, {
      logins: interactions,
      ...(questions ? { prompts: questions } : {}),
    }),
    status: async ({ response }) => {
      const status: BrokerResponse<'status'> = {
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
    profiles: async ({ response }) => replyJson(response, 200, { profiles: await broker.profiles() }),
    storeSecret: async ({ params, body, request, response }) => {
      // A store on a hardware token may wait for its PIN: the CLI that waits says where to give it.
      const stopNotices =
        request.headers[NOTICE_HEADERS.accept] === '1'
          ? followNotices(
              params.profile,
              { logins: interactions, ...(questions ? { prompts: questions } : {}) },
              (text) => sendNotice(response, text),
            )
          : undefined;
      const asker = socketAsker(request, { witnesses, callers: new ProcessCallerInfo() });
      try {
        await broker.setSecret(params.profile, params.field, body.value, async () => (await asker).caller);
      } finally {
        stopNotices?.();
      }
      response.statusCode = 204;
      response.end();
    },
    deleteSecret: async ({ params, response }) =>
      replyJson(response, 200, { deleted: await broker.deleteSecret(params.profile, params.field) }),
    listSecrets: async ({ params, response }) => replyJson(response, 200, await broker.listSecrets(params.profile)),
    login: async ({ params: { profile }, request, response }) => {
      const asker = socketAsker(request, { witnesses, callers: new ProcessCallerInfo() });
      const { client } = await asker;
      const caller = asker.then((found) => found.caller);
      replyJson(response, 200, { profile, ...(await broker.login(profile, { client, caller })) });
    },
    logout: async ({ params: { profile }, response }) => {
      await broker.logout(profile);
      replyJson(response, 200, { profile, loggedOut: true });
    },
    removeProfile: async ({ params: { profile }, request, response }) => {
      const { caller, client } = await socketAsker(request, { witnesses, callers: new ProcessCallerInfo() });
      await profiles.remove(profile, { caller, client });
      replyJson(response, 200, { profile, removed: true });
    },
    guardState: async ({ params: { profile }, response }) => replyJson(response, 200, await guards.state(profile)),
    // A lift is the person's act: guardHandler decides who asked, and GuardControl asks the person where needed.
    guard: guardHandler(
      guards,
      { witnesses, callers: new ProcessCallerInfo() },
      { logins: interactions, ...(questions ? { prompts: questions } : {}) },
    ),
    refresh: async ({ params: { profile }, response }) =>
      replyJson(response, 200, { profile, ...(await broker.refresh(profile)) }),
    // It opens the profile's AWS session now, so the retry is served from memory.
    mfaCode: (call) => typedAnswer(call, mfaCodes, call.body.code),
    // The login runs now with it, so the retry is served from the cache.
    loginSecret: (call) => typedAnswer(call, loginSecrets, call.body.secret),
    importLiveRefreshTokens: async ({ response }) =>
      replyJson(response, 200, { users: await restoreLiveRefreshTokens() }),
    unlock: async ({ body, response }) => replyJson(response, 200, await admin.unlock(body.passphrase)),
    lock: async ({ response }) => {
      await admin.lockAll();
      replyJson(response, 200, { locked: true });
    },
    proxyCa: async ({ response }) => replyJson(response, 200, { certificatePem: await proxies.caCertificate() }),
    proxyStatus: async ({ response }) => replyJson(response, 200, await proxies.status()),
    tokens: async ({ response }) => replyJson(response, 200, { tokens: await admin.listTokens() }),
    tokenLogin: async ({ params: { token }, body, response }) => {
      await admin.login(token, body.pin);
      replyJson(response, 200, { token, loggedIn: true });
    },
    tokenLogout: async ({ params: { token }, response }) => {
      await admin.logout(token);
      replyJson(response, 200, { token, loggedIn: false });
    },
    ...registryHandlers(registries, witnesses),
  };
}
