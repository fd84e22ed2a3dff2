import { z } from 'zod';
import { promptAnswerSchema } from './prompts.js';
import {
  auditResponseSchema,
  importPreviewSchema,
  importRequestSchema,
  importResultSchema,
  newProfileRequestSchema,
  preferencesSchema,
  profileChangesSchema,
  profileConfigResponseSchema,
  proxyTurnedOnSchema,
  registryLoginRequestSchema,
  profileCertificateResponseSchema,
  sessionProofRequestSchema,
  sessionProofResponseSchema,
  sessionRequestSchema,
  sessionResponseSchema,
  startAtLoginRequestSchema,
  tokenChangesSchema,
  tokensResponseSchema,
  webUiStateSchema,
} from './webUiApi.js';
import { secretWriteSchema } from './status.js';

// The one contract between the UI and the broker. Every window (the browser tab of the
// headless broker, the tray app's windows) loads the same page from the same loopback server,
// so this table is the only place an operation's method, path and body shapes are written:
// the renderer builds its requests from it, the server matches them against it, and the type
// of the server's handler map makes an operation without a handler a compile error.

const nothing = z.object({});

/** Every operation's path starts here; anything else the server answers is the page's own files. */
export const UI_API_PREFIX = '/api/';

interface Operation {
  readonly method: 'GET' | 'POST';
  /** `:name` stands for one URL-encoded path segment. */
  readonly path: string;
  /** What a POST carries (GETs carry nothing). */
  readonly request?: z.ZodType;
  /** What a successful answer carries; the events stream has none (it is a stream). */
  readonly response?: z.ZodType;
}

export const UI_OPERATIONS = {
  /** Trades a link's one-time token for a session secret. */
  openSession: { method: 'POST', path: '/api/session', request: sessionRequestSchema, response: sessionResponseSchema },
  /**
   * The session key's answer to a page's challenge, asked with no bearer: a page whose stream
   * dropped sends its session secret again only to the broker that proves it holds the key.
   */
  proveSession: {
    method: 'POST',
    path: '/api/session/proof',
    request: sessionProofRequestSchema,
    response: sessionProofResponseSchema,
  },
  /** Sign out of the page: the broker forgets the session. */
  endSession: { method: 'POST', path: '/api/session/end', request: nothing, response: nothing },
  state: { method: 'GET', path: '/api/state', response: webUiStateSchema },
  /** The same state, pushed as server-sent events whenever it changes. */
  events: { method: 'GET', path: '/api/events' },
  login: { method: 'POST', path: '/api/profiles/:profile/login', request: nothing, response: nothing },
  logout: { method: 'POST', path: '/api/profiles/:profile/logout', request: nothing, response: nothing },
  /** Stops the profile's pending login (the card's Cancel). */
  cancelLogin: { method: 'POST', path: '/api/profiles/:profile/cancel-login', request: nothing, response: nothing },
  answer: { method: 'POST', path: '/api/prompts/:prompt', request: promptAnswerSchema, response: nothing },
  /** A new profile in config.yaml. */
  addProfile: { method: 'POST', path: '/api/profiles', request: newProfileRequestSchema, response: nothing },
  /** Takes the profile out of config.yaml (a POST with JSON, like every change). */
  removeProfile: { method: 'POST', path: '/api/profiles/:profile/remove', request: nothing, response: nothing },
  /** The profile as config.yaml has it (never a secret: those live in stores). */
  profileConfig: { method: 'GET', path: '/api/profiles/:profile/config', response: profileConfigResponseSchema },
  /** Turns the exec proxy on for a profile whose key is on a token, from its kubeconfig context. */
  turnOnProxy: {
    method: 'POST',
    path: '/api/profiles/:profile/proxy',
    request: nothing,
    response: proxyTurnedOnSchema,
  },
  /** The client certificate the profile presents (subject, issuer, expiry), or null. */
  profileCertificate: {
    method: 'GET',
    path: '/api/profiles/:profile/certificate',
    response: profileCertificateResponseSchema,
  },
  updateProfile: {
    method: 'POST',
    path: '/api/profiles/:profile/update',
    request: profileChangesSchema,
    response: nothing,
  },
  storeSecret: {
    method: 'POST',
    path: '/api/profiles/:profile/secrets/:field',
    request: secretWriteSchema,
    response: nothing,
  },
  auditLog: { method: 'GET', path: '/api/audit', response: auditResponseSchema },
  /** Stores a registry login, under the registry whose matchImages serve the server. */
  registryLogin: {
    method: 'POST',
    path: '/api/registries/login',
    request: registryLoginRequestSchema,
    response: nothing,
  },
  tokens: { method: 'GET', path: '/api/tokens', response: tokensResponseSchema },
  /** Changes to a token's fields in config.yaml (pinGrace). */
  updateToken: { method: 'POST', path: '/api/tokens/:token/update', request: tokenChangesSchema, response: nothing },
  /** Approval policies, PIN grace periods and start at login. */
  preferences: { method: 'GET', path: '/api/preferences', response: preferencesSchema },
  setStartAtLogin: {
    method: 'POST',
    path: '/api/preferences/start-at-login',
    request: startAtLoginRequestSchema,
    response: nothing,
  },
  /** What importing the broker's kubeconfig would move (the diff, secrets redacted). */
  importPreview: { method: 'GET', path: '/api/kubeconfig-import', response: importPreviewSchema },
  /** Runs the import of exactly the plan the preview with this fingerprint showed. */
  importKubeconfig: {
    method: 'POST',
    path: '/api/kubeconfig-import',
    request: importRequestSchema,
    response: importResultSchema,
  },
} as const satisfies Record<string, Operation>;

export type UiOperation = keyof typeof UI_OPERATIONS;

type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

/** The path parameters an operation takes, by name. */
export type UiParams<O extends UiOperation> = { readonly [N in ParamNames<(typeof UI_OPERATIONS)[O]['path']>]: string };

type Schema<O extends UiOperation, K extends 'request' | 'response'> = (typeof UI_OPERATIONS)[O] extends {
  readonly [P in K]: infer S extends z.ZodType;
}
  ? S
  : never;

/** What an operation's POST body is (after validation); undefined for a GET. */
export type UiRequest<O extends UiOperation> = [Schema<O, 'request'>] extends [never]
  ? undefined
  : z.output<Schema<O, 'request'>>;
export type UiResponse<O extends UiOperation> = [Schema<O, 'response'>] extends [never]
  ? never
  : z.output<Schema<O, 'response'>>;

/** The path of one call: the operation's template with each `:name` filled in, URL-encoded. */
export function uiPath<O extends UiOperation>(operation: O, params: UiParams<O>): string {
  const values = params as Readonly<Record<string, string>>;
  return UI_OPERATIONS[operation].path.replace(/:([a-z]+)/g, (_match, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${operation} needs ${name}`);
    return encodeURIComponent(value);
  });
}

/**
 * The operation a request names, with its decoded path parameters; undefined when no
 * operation has that method and path. A parameter never spans a slash, and one that does not
 * decode (a stray %) matches nothing.
 */
export function matchUiOperation(
  method: string,
  pathname: string,
): { operation: UiOperation; params: Readonly<Record<string, string>> } | undefined {
  for (const operation of Object.keys(UI_OPERATIONS) as UiOperation[]) {
    const { method: expected, path } = UI_OPERATIONS[operation];
    if (method !== expected && !(method === 'HEAD' && expected === 'GET')) continue;
    const names: string[] = [];
    const pattern = new RegExp(`^${path.replace(/:([a-z]+)/g, (_m, name: string) => (names.push(name), '([^/]+)'))}$`);
    const match = pattern.exec(pathname);
    if (!match) continue;
    try {
      return {
        operation,
        params: Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1]!)])),
      };
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Whether some operation lives at this path under another method (the server answers 405, not 404). */
export function isUiPath(pathname: string): boolean {
  return (['GET', 'POST'] as const).some((method) => matchUiOperation(method, pathname) !== undefined);
}
