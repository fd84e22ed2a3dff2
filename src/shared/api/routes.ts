import type { z } from 'zod';
import { credentialRequestSchema } from './credentialRequest.js';
import type { BodyOf, RequestOf, ResponseOf } from './operationShapes.js';
import { fillTemplate, type TemplateParams } from './pathTemplate.js';
import {
  loginSecretSchema,
  mfaCodeSchema,
  guardChangeSchema,
  passphraseSchema,
  pinSchema,
  secretWriteSchema,
  statusSchema,
} from './status.js';
import { dockerServerCallSchema, dockerStoreCallSchema, providerCallSchema } from '../registry/registryRequests.js';

// The broker's HTTP API on its socket (docs/wire-protocol.md), one table like the web UI's
// contract: the CLI, the doctor and the demo build their requests from it, the server matches
// requests against it, and the type of the server's handler map makes an operation without a
// handler a compile error. The Go shim spells its one path, /v1/credential, itself.

/** One operation of the socket API. */
export interface BrokerOperationSpec {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** `:name` stands for one URL-encoded path segment (pathTemplate.ts). */
  readonly path: string;
  /** What the body must be; the server refuses it before any handler runs. Operations without one never read a body. */
  readonly request?: z.ZodType;
  /** What a successful answer carries, where it has a schema. */
  readonly response?: z.ZodType;
  /** A larger body than MAX_REQUEST_BYTES. */
  readonly maxBodyBytes?: number;
}

export const BROKER_OPERATIONS = {
  /** The exec plugin. Its answer is the ExecCredential to print, or (HEADERS) the line for stderr and the exit code. */
  credential: { method: 'POST', path: '/v1/credential', request: credentialRequestSchema },
  status: { method: 'GET', path: '/v1/status', response: statusSchema },
  profiles: { method: 'GET', path: '/v1/profiles' },
  // Two methods on one path: a wrong one is told "use PUT or DELETE", in this order.
  /** A secret value can be a certificate chain or a key, so it may be larger than other bodies. */
  storeSecret: {
    method: 'PUT',
    path: '/v1/secrets/:profile/:field',
    request: secretWriteSchema,
    maxBodyBytes: 300 * 1024,
  },
  deleteSecret: { method: 'DELETE', path: '/v1/secrets/:profile/:field' },
  /** The profile's store and the names of its secrets (never values). */
  listSecrets: { method: 'GET', path: '/v1/secrets/:profile' },
  login: { method: 'POST', path: '/v1/profiles/:profile/login' },
  logout: { method: 'POST', path: '/v1/profiles/:profile/logout' },
  /** Takes the profile out of config.yaml; the broker forgets its state and records who removed it. */
  removeProfile: { method: 'DELETE', path: '/v1/profiles/:profile' },
  /** A new credential now, keeping the login. */
  refresh: { method: 'POST', path: '/v1/profiles/:profile/refresh' },
  /** A profile's guard: its state (GET), lifted for a while or back (POST). */
  guardState: { method: 'GET', path: '/v1/profiles/:profile/guard' },
  guard: { method: 'POST', path: '/v1/profiles/:profile/guard', request: guardChangeSchema },
  /** (eks) An MFA code typed in a terminal. */
  mfaCode: { method: 'POST', path: '/v1/profiles/:profile/mfa', request: mfaCodeSchema },
  /** (keystone) A password or application credential secret typed in a terminal. */
  loginSecret: { method: 'POST', path: '/v1/profiles/:profile/login-secret', request: loginSecretSchema },
  /** By `kubecred import --undo`: the live refresh tokens go back into the users it restored. */
  importLiveRefreshTokens: { method: 'POST', path: '/v1/import/live-refresh-tokens' },
  unlock: { method: 'POST', path: '/v1/unlock', request: passphraseSchema },
  lock: { method: 'POST', path: '/v1/lock' },
  /** The local CA of kubecred-proxy's listeners (a certificate, public). */
  proxyCa: { method: 'GET', path: '/v1/proxy/ca' },
  /** Whether kubecred-proxy runs, its listeners, goroutines and open files. */
  proxyStatus: { method: 'GET', path: '/v1/proxy/status' },
  tokens: { method: 'GET', path: '/v1/tokens' },
  tokenLogin: { method: 'POST', path: '/v1/tokens/:token/login', request: pinSchema },
  tokenLogout: { method: 'POST', path: '/v1/tokens/:token/logout' },
  /** A one-time link to the web UI. */
  webUiLink: { method: 'POST', path: '/v1/webui/link' },
  stop: { method: 'POST', path: '/v1/stop' },
  // Image registry credentials: the kubelet's credential provider and docker's credential helper.
  credentialProvider: { method: 'POST', path: '/v1/registry/credential-provider', request: providerCallSchema },
  dockerGet: { method: 'POST', path: '/v1/registry/docker/get', request: dockerServerCallSchema },
  dockerStore: { method: 'POST', path: '/v1/registry/docker/store', request: dockerStoreCallSchema },
  dockerErase: { method: 'POST', path: '/v1/registry/docker/erase', request: dockerServerCallSchema },
  dockerList: { method: 'GET', path: '/v1/registry/docker/list' },
} as const satisfies Record<string, BrokerOperationSpec>;

export type BrokerOperation = keyof typeof BROKER_OPERATIONS;

/** The path parameters an operation takes, by name. */
export type BrokerParams<O extends BrokerOperation> = TemplateParams<(typeof BROKER_OPERATIONS)[O]['path']>;

type Spec<O extends BrokerOperation> = (typeof BROKER_OPERATIONS)[O];
export type BrokerRequest<O extends BrokerOperation> = RequestOf<Spec<O>>;
export type BrokerBody<O extends BrokerOperation> = BodyOf<Spec<O>>;
export type BrokerResponse<O extends BrokerOperation> = ResponseOf<Spec<O>>;

/** The path of one call: the operation's template with each `:name` filled in, URL-encoded. */
export function brokerPath<O extends BrokerOperation>(operation: O, params: BrokerParams<O>): string {
  return fillTemplate(BROKER_OPERATIONS[operation].path, params, operation);
}

export const HEADERS = {
  exitCode: 'kubecred-exit-code',
  handover: 'kubecred-handover',
  /** What to ask the user so a retry succeeds: "token-pin <token>", "mfa-code <profile>", "login-secret <profile>" or "passphrase". */
  prompt: 'kubecred-prompt',
} as const;

/** Request bodies above this are refused before they are parsed. */
export const MAX_REQUEST_BYTES = 64 * 1024;
