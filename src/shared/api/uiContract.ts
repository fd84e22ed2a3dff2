import type { RequestOf, ResponseOf } from './operationShapes.js';
import { z } from 'zod';
import { promptAnswerSchema } from './prompts.js';
import {
  auditResponseSchema,
  enrollRequestSchema,
  enrollStartedSchema,
  guardRulesRequestSchema,
  guardStateSchema,
  importPreviewSchema,
  installedSchema,
  installRequestSchema,
  importRequestSchema,
  importResultSchema,
  importUndoneSchema,
  kubeconfigContextsSchema,
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
import { guardChangeSchema, secretWriteSchema } from './status.js';
import { fillTemplate, templatePattern, type TemplateParamNames, type TemplateParams } from './pathTemplate.js';

// The one contract between the UI and the broker. Every window (the browser tab of the
// headless broker, the tray app's windows) loads the same page from the same loopback server,
// so this table is the only place an operation is declared: its method, path, body shapes and
// what it means. The renderer's Transport has one method per entry, typed from it
// (src/renderer/api/transport.ts); the server matches requests against it; and the type of the
// server's handler map makes an operation without a handler a compile error. A new operation
// is an entry here and its handler in src/main/webui/uiHandlers.ts.

/** The body of a POST that says everything in its path, and the answer of one that returns nothing. */
const nothing = z.object({});

/** Every operation's path starts here; anything else the server answers is the page's own files. */
export const UI_API_PREFIX = '/api/';

interface Operation {
  readonly method: 'GET' | 'POST';
  /** `:name` stands for one URL-encoded path segment (pathTemplate.ts). */
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
  /** Profiles, registries, logins and questions waiting on the user, as the broker sees them now. */
  state: { method: 'GET', path: '/api/state', response: webUiStateSchema },
  /** The same state, pushed as server-sent events whenever it changes (the renderer's `subscribe`). */
  events: { method: 'GET', path: '/api/events' },
  /** Starts the profile's login and answers at once: the page follows it, and its failure, on the stream. */
  login: { method: 'POST', path: '/api/profiles/:profile/login', request: nothing, response: nothing },
  /** Forgets the profile's cached credential and signs it out of its provider. */
  logout: { method: 'POST', path: '/api/profiles/:profile/logout', request: nothing, response: nothing },
  /** Stops the profile's pending login (the card's Cancel). */
  cancelLogin: { method: 'POST', path: '/api/profiles/:profile/cancel-login', request: nothing, response: nothing },
  /** The user's answer to a question waiting in the page (PIN, passphrase, approval, form). */
  answer: { method: 'POST', path: '/api/prompts/:prompt', request: promptAnswerSchema, response: nothing },
  /** A new profile in config.yaml; a refusal (an ApiError) names in `field` the form field the broker refused. */
  addProfile: { method: 'POST', path: '/api/profiles', request: newProfileRequestSchema, response: nothing },
  /** Takes the profile out of config.yaml (a POST with JSON, like every change). */
  removeProfile: { method: 'POST', path: '/api/profiles/:profile/remove', request: nothing, response: nothing },
  /** The profile as config.yaml has it (never a secret: those live in stores). */
  profileConfig: { method: 'GET', path: '/api/profiles/:profile/config', response: profileConfigResponseSchema },
  /**
   * Turns the exec proxy on for a profile, from its kubeconfig context; a refusal carries the
   * broker's words.
   */
  turnOnProxy: {
    method: 'POST',
    path: '/api/profiles/:profile/proxy',
    request: nothing,
    response: proxyTurnedOnSchema,
  },
  /**
   * Lifts a proxied profile's guard for `forSeconds` (it comes back by itself), or puts it back
   * now (`off: false`); answers where the guard stands. Every change is audited.
   */
  guard: {
    method: 'POST',
    path: '/api/profiles/:profile/guard',
    request: guardChangeSchema,
    response: guardStateSchema,
  },
  /**
   * Writes a proxied profile's guard rules to config.yaml, or takes its guard away
   * (`rules: null`); refused, like updateProfile, when the result is invalid, and for a profile
   * that does not go through the exec proxy.
   */
  setGuard: {
    method: 'POST',
    path: '/api/profiles/:profile/guard-rules',
    request: guardRulesRequestSchema,
    response: nothing,
  },
  /**
   * Points the user of a kubeconfig context at the profile, as `kubecred install --profile
   * --context` does; refused (in the broker's words) when that user has credentials of its own.
   */
  installProfile: {
    method: 'POST',
    path: '/api/profiles/:profile/install',
    request: installRequestSchema,
    response: installedSchema,
  },
  /** The client certificate the profile presents (subject, issuer, expiry), or null. */
  profileCertificate: {
    method: 'GET',
    path: '/api/profiles/:profile/certificate',
    response: profileCertificateResponseSchema,
  },
  /** Changes to a profile's fields in config.yaml; refused, like addProfile, when the result is invalid. */
  updateProfile: {
    method: 'POST',
    path: '/api/profiles/:profile/update',
    request: profileChangesSchema,
    response: nothing,
  },
  /** Stores one of the profile's secrets in its store; the broker refuses a field its provider never reads. */
  storeSecret: {
    method: 'POST',
    path: '/api/profiles/:profile/secrets/:field',
    request: secretWriteSchema,
    response: nothing,
  },
  /** The newest audit records, newest first. */
  auditLog: { method: 'GET', path: '/api/audit', response: auditResponseSchema },
  /**
   * Stores a registry login as `docker login` would, under the registry whose matchImages serve
   * the server; a refusal carries the broker's words.
   */
  registryLogin: {
    method: 'POST',
    path: '/api/registries/login',
    request: registryLoginRequestSchema,
    response: nothing,
  },
  /** The configured hardware tokens: presence, login and PIN state, never a secret. */
  tokens: { method: 'GET', path: '/api/tokens', response: tokensResponseSchema },
  /** Changes to a token's fields in config.yaml (pinGrace); refused, like updateProfile, when invalid. */
  updateToken: { method: 'POST', path: '/api/tokens/:token/update', request: tokenChangesSchema, response: nothing },
  /** Approval policies, PIN grace periods and start at login. */
  preferences: { method: 'GET', path: '/api/preferences', response: preferencesSchema },
  /** Turns start at login on or off, through the shell's login item. */
  setStartAtLogin: {
    method: 'POST',
    path: '/api/preferences/start-at-login',
    request: startAtLoginRequestSchema,
    response: nothing,
  },
  /** What importing the broker's kubeconfig would move (the diff, secrets redacted). */
  importPreview: { method: 'GET', path: '/api/kubeconfig-import', response: importPreviewSchema },
  /** Runs the import of exactly the plan the preview with this fingerprint showed; refused if the files changed since. */
  importKubeconfig: {
    method: 'POST',
    path: '/api/kubeconfig-import',
    request: importRequestSchema,
    response: importResultSchema,
  },
  /**
   * Takes the newest import back, as `kubecred import --undo --plaintext` does: the files get
   * their old text (old credentials included), its profiles and secrets go.
   */
  undoImport: { method: 'POST', path: '/api/kubeconfig-import/undo', request: nothing, response: importUndoneSchema },
  /** The contexts of the broker's kubeconfig files, for the forms that start from one. */
  kubeconfigContexts: { method: 'GET', path: '/api/kubeconfig-contexts', response: kubeconfigContextsSchema },
  /**
   * Starts `kubecred enroll` in the broker and answers once its checks pass: the steps, the
   * command an admin runs and the outcome reach the page as interactions on the stream.
   */
  enrollProfile: { method: 'POST', path: '/api/enroll', request: enrollRequestSchema, response: enrollStartedSchema },
} as const satisfies Record<string, Operation>;

export type UiOperation = keyof typeof UI_OPERATIONS;

type Path<O extends UiOperation> = (typeof UI_OPERATIONS)[O]['path'];

/** The names of an operation's path parameters, in the order its path has them. */
export type UiParamNames<O extends UiOperation> = TemplateParamNames<Path<O>>;

/** The path parameters an operation takes, by name. */
export type UiParams<O extends UiOperation> = TemplateParams<Path<O>>;

/** What an operation's POST body is (after validation); undefined for a GET. */
export type UiRequest<O extends UiOperation> = RequestOf<(typeof UI_OPERATIONS)[O]>;
export type UiResponse<O extends UiOperation> = ResponseOf<(typeof UI_OPERATIONS)[O]>;

/** The names of an operation's path parameters at run time, in the order UiParamNames gives their types. */
export function uiParamNames<O extends UiOperation>(operation: O): UiParamNames<O> {
  return templatePattern(UI_OPERATIONS[operation].path).names as UiParamNames<O>;
}

/** The path of one call: the operation's template with each `:name` filled in, URL-encoded. */
export function uiPath<O extends UiOperation>(operation: O, params: UiParams<O>): string {
  return fillTemplate(UI_OPERATIONS[operation].path, params, operation);
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
    const { pattern, names } = templatePattern(path);
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
