import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/**
 * POST /v3/auth/tokens as Keystone (2025.x, keystone/auth/core.py and plugins) answers it:
 * password and application_credential methods; project (id, or name + domain), domain,
 * explicit unscoped and default-project scoping; 201 with X-Subject-Token; Keystone's error
 * JSON with its status codes. Like production Keystone, every 401 says only "The request
 * you have made requires authentication." unless insecureDebug is set, which adds the reason.
 */

export interface StandInDomain {
  id: string;
  name: string;
}
export interface StandInUser {
  id: string;
  name: string;
  domainId: string;
  password: string;
  defaultProjectId?: string;
}
export interface StandInProject {
  id: string;
  name: string;
  domainId: string;
}
export interface StandInAppCred {
  id: string;
  name: string;
  userId: string;
  secret: string;
  projectId: string;
}
export interface StandInRole {
  userId: string;
  projectId?: string;
  domainId?: string;
}

export interface StandInData {
  domains: StandInDomain[];
  users: StandInUser[];
  projects: StandInProject[];
  applicationCredentials: StandInAppCred[];
  roles: StandInRole[];
}

export const STAND_IN_DATA: StandInData = {
  domains: [
    { id: 'default', name: 'Default' },
    { id: 'd-eng', name: 'engineering' },
  ],
  users: [
    {
      id: 'u-alice',
      name: 'alice',
      domainId: 'default',
      password: 'correct horse battery',
      defaultProjectId: 'p-demo',
    },
    { id: 'u-bob', name: 'bob', domainId: 'd-eng', password: 'b0b-pass' },
  ],
  projects: [
    { id: 'p-demo', name: 'demo', domainId: 'default' },
    { id: 'p-ops', name: 'ops', domainId: 'd-eng' },
    { id: 'p-secret', name: 'secret', domainId: 'default' },
  ],
  applicationCredentials: [
    { id: 'ac-kubectl', name: 'kubectl', userId: 'u-alice', secret: 'app-cred-s3cret', projectId: 'p-demo' },
  ],
  roles: [
    { userId: 'u-alice', projectId: 'p-demo' },
    { userId: 'u-alice', domainId: 'default' },
    { userId: 'u-bob', projectId: 'p-ops' },
  ],
};

export interface KeystoneStandInOptions {
  data?: StandInData;
  tls?: { certPem: string; keyPem: string };
  insecureDebug?: boolean;
  tokenLifetimeMs?: number;
  now?: () => number;
}

export interface KeystoneStandIn {
  /** http(s)://127.0.0.1:port, without /v3. */
  readonly url: string;
  /** url + /v3. */
  readonly authUrl: string;
  /** Every request, any path. */
  readonly requests: number;
  /** Parsed bodies of POST /v3/auth/tokens (they hold secrets: tests only) and the query strings. */
  readonly received: { body: unknown; query: string }[];
  /** The X-Subject-Token of every token issued. */
  readonly tokens: string[];
  /** GET /v3/auth/tokens answered (token validations), any outcome. */
  readonly validations: number;
  /** Revokes a token as DELETE /v3/auth/tokens or an admin's revocation does: it stops authenticating and validating. */
  revoke(token: string): void;
  /** Whether Keystone would still accept the token (issued, not revoked, not expired). */
  accepts(token: string): boolean;
  close(): Promise<void>;
}

class KeystoneFailure extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
    /** Shown only in insecure_debug mode, as Keystone's SecurityError does. */
    readonly debugDetail?: string,
  ) {
    super(message);
  }
}

const GENERIC_401 = 'The request you have made requires authentication.';
const unauthorized = (detail: string): KeystoneFailure => new KeystoneFailure(401, 'Unauthorized', GENERIC_401, detail);
const validation = (attribute: string, target: string): KeystoneFailure =>
  new KeystoneFailure(
    400,
    'Bad Request',
    `Expecting to find ${attribute} in ${target}. The server could not comply with the request since it is either malformed or otherwise incorrect. The client is assumed to be in error.`,
  );

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** keystone.common.utils.isotime(subsecond=True): microsecond format, second precision. */
const isotime = (ms: number): string => `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}.000000Z`;

class KeystoneModel {
  constructor(private readonly data: StandInData) {}

  domain(ref: unknown, target: string): StandInDomain {
    if (!isObject(ref) || (!str(ref.id) && !str(ref.name))) throw validation('id or name', target);
    const found = str(ref.name)
      ? this.data.domains.find((d) => d.name === ref.name)
      : this.data.domains.find((d) => d.id === ref.id);
    if (!found) throw unauthorized(`Could not find domain: ${str(ref.name) ?? str(ref.id)}.`);
    return found;
  }

  user(ref: unknown, method: string): StandInUser {
    if (!isObject(ref)) throw validation('user', method);
    if (!str(ref.id) && !str(ref.name)) throw validation('id or name', 'user');
    let user: StandInUser | undefined;
    if (str(ref.name)) {
      if (!('domain' in ref)) throw validation('domain', 'user');
      const domain = this.domain(ref.domain, 'domain');
      user = this.data.users.find((u) => u.name === ref.name && u.domainId === domain.id);
    } else {
      user = this.data.users.find((u) => u.id === ref.id);
    }
    if (!user) throw unauthorized(`Could not find user: ${str(ref.name) ?? str(ref.id)}.`);
    return user;
  }

  project(ref: unknown): StandInProject {
    if (!isObject(ref)) throw validation('project', 'scope');
    let project: StandInProject | undefined;
    if (str(ref.name)) {
      if (!('domain' in ref)) throw validation('domain', 'project');
      const domain = this.domain(ref.domain, 'domain');
      project = this.data.projects.find((p) => p.name === ref.name && p.domainId === domain.id);
    } else {
      project = this.data.projects.find((p) => p.id === ref.id);
    }
    if (!project) throw unauthorized(`Could not find project: ${str(ref.name) ?? str(ref.id)}.`);
    return project;
  }

  hasRole(userId: string, target: { projectId?: string; domainId?: string }): boolean {
    return this.data.roles.some(
      (r) =>
        r.userId === userId && (target.projectId ? r.projectId === target.projectId : r.domainId === target.domainId),
    );
  }

  domainById(id: string): StandInDomain {
    const found = this.data.domains.find((d) => d.id === id);
    if (!found) throw new Error(`stand-in data: no domain ${id}`);
    return found;
  }

  appCred(payload: Json): { user: StandInUser; cred: StandInAppCred } {
    if (str(payload.id)) {
      const cred = this.data.applicationCredentials.find((c) => c.id === payload.id);
      // Not a SecurityError in Keystone: a NotFound, shown as is.
      if (!cred)
        throw new KeystoneFailure(404, 'Not Found', `Could not find Application Credential: ${String(payload.id)}.`);
      const user = this.data.users.find((u) => u.id === cred.userId);
      if (!user) throw unauthorized('owner gone');
      return { user, cred };
    }
    if (!str(payload.name)) throw validation('id or name', 'application credential');
    const user = this.user(payload.user, 'application_credential');
    const cred = this.data.applicationCredentials.find((c) => c.userId === user.id && c.name === payload.name);
    if (!cred) throw unauthorized(`Could not find application credential: ${String(payload.name)}`);
    return { user, cred };
  }
}

type Scope = { project: StandInProject } | { domain: StandInDomain } | undefined;

function issue(
  model: KeystoneModel,
  auth: unknown,
  now: number,
  lifetimeMs: number,
  withCatalog: boolean,
): { token: string; body: Json } {
  if (!isObject(auth)) throw validation('auth', 'request body');
  const identity = auth.identity;
  if (!isObject(identity) || !Array.isArray(identity.methods) || identity.methods.length === 0)
    throw validation('methods', 'identity');
  const methods = identity.methods as unknown[];
  const method = methods[0];
  if (methods.length !== 1 || (method !== 'password' && method !== 'application_credential')) {
    throw new KeystoneFailure(401, 'Unauthorized', 'Attempted to authenticate with an unsupported method.');
  }
  const payload = identity[method];
  if (!isObject(payload)) throw validation(method, 'identity');
  const rawScope = auth.scope;
  if (rawScope !== undefined) {
    if (!(isObject(rawScope) || rawScope === 'unscoped'))
      throw validation('project, domain, OS-TRUST:trust or unscoped', 'scope');
    if (
      isObject(rawScope) &&
      ['project', 'domain', 'unscoped', 'system', 'OS-TRUST:trust'].filter((k) => k in rawScope).length > 1
    ) {
      throw validation('project, domain, OS-TRUST:trust or unscoped', 'scope');
    }
  }

  let user: StandInUser;
  let scope: Scope;
  let appCred: StandInAppCred | undefined;
  if (method === 'application_credential') {
    if (rawScope !== undefined)
      throw new KeystoneFailure(
        401,
        'Unauthorized',
        'Error authenticating with application credential: Application credentials cannot request a scope.',
      );
    ({ user, cred: appCred } = model.appCred(payload));
    if (payload.secret !== appCred.secret) throw unauthorized('Invalid application credential');
    scope = { project: model.project({ id: appCred.projectId }) };
  } else {
    // Keystone resolves the scope before it checks the password.
    const requested: Scope =
      isObject(rawScope) && 'project' in rawScope
        ? { project: model.project(rawScope.project) }
        : isObject(rawScope) && 'domain' in rawScope
          ? { domain: model.domain(rawScope.domain, 'scope') }
          : undefined;
    user = model.user(payload.user, 'password');
    if (!isObject(payload.user) || payload.user.password !== user.password)
      throw unauthorized('Invalid username or password');
    scope = requested;
    if (
      scope === undefined &&
      rawScope !== 'unscoped' &&
      !(isObject(rawScope) && 'unscoped' in rawScope) &&
      user.defaultProjectId &&
      model.hasRole(user.id, { projectId: user.defaultProjectId })
    ) {
      scope = { project: model.project({ id: user.defaultProjectId }) };
    }
    if (scope && 'project' in scope && !model.hasRole(user.id, { projectId: scope.project.id }))
      throw unauthorized(`User ${user.id} has no access to project ${scope.project.id}`);
    if (scope && 'domain' in scope && !model.hasRole(user.id, { domainId: scope.domain.id }))
      throw unauthorized(`User ${user.id} has no access to domain ${scope.domain.id}`);
  }

  const userDomain = model.domainById(user.domainId);
  const token: Json = {
    methods: [method],
    user: {
      domain: { id: userDomain.id, name: userDomain.name },
      id: user.id,
      name: user.name,
      password_expires_at: null,
    },
    audit_ids: [randomBytes(16).toString('base64url')],
    expires_at: isotime(now + lifetimeMs),
    issued_at: isotime(now),
  };
  if (scope && 'project' in scope) {
    const domain = model.domainById(scope.project.domainId);
    Object.assign(token, {
      project: { domain: { id: domain.id, name: domain.name }, id: scope.project.id, name: scope.project.name },
      is_domain: false,
      roles: [{ id: 'r-member', name: 'member' }],
    });
  }
  if (scope && 'domain' in scope)
    Object.assign(token, {
      domain: { id: scope.domain.id, name: scope.domain.name },
      roles: [{ id: 'r-member', name: 'member' }],
    });
  if (appCred) token.application_credential = { id: appCred.id, name: appCred.name, restricted: true };
  if (withCatalog && scope) token.catalog = [];
  return { token: `gAAAAA${randomBytes(48).toString('base64url')}`, body: { token } };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startKeystoneStandIn(options: KeystoneStandInOptions = {}): Promise<KeystoneStandIn> {
  const model = new KeystoneModel(options.data ?? STAND_IN_DATA);
  const now = options.now ?? Date.now;
  const lifetimeMs = options.tokenLifetimeMs ?? 3_600_000;
  const received: { body: unknown; query: string }[] = [];
  const tokens: string[] = [];
  const issued = new Map<string, { body: Json; expiresAt: number }>();
  const revoked = new Set<string>();
  let requests = 0;
  let validations = 0;
  let authUrl = '';

  const send = (response: ServerResponse, status: number, body: Json, headers: Record<string, string> = {}): void => {
    response.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    requests += 1;
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const text = await readBody(request);
    if (url.pathname !== '/v3/auth/tokens')
      return send(response, 404, {
        error: { code: 404, message: 'The resource could not be found.', title: 'Not Found' },
      });
    if (request.method === 'GET') return validate(request, response);
    if (request.method !== 'POST')
      return send(response, 405, {
        error: { code: 405, message: 'The method is not allowed for the requested URL.', title: 'Method Not Allowed' },
      });
    try {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new KeystoneFailure(400, 'Bad Request', 'Malformed request body.');
      }
      received.push({ body: parsed, query: url.search });
      const { token, body } = issue(
        model,
        isObject(parsed) ? parsed.auth : undefined,
        now(),
        lifetimeMs,
        !url.searchParams.has('nocatalog'),
      );
      tokens.push(token);
      issued.set(token, { body, expiresAt: now() + lifetimeMs });
      send(response, 201, body, { 'X-Subject-Token': token, Vary: 'X-Auth-Token' });
    } catch (error) {
      if (!(error instanceof KeystoneFailure)) throw error;
      const message =
        options.insecureDebug && error.debugDetail
          ? `${error.debugDetail} (Disable insecure_debug mode to suppress these details.)`
          : error.message;
      send(
        response,
        error.status,
        { error: { code: error.status, message, title: error.title } },
        error.status === 401 ? { 'WWW-Authenticate': `Keystone uri="${authUrl}"` } : {},
      );
    }
  };
  const accepts = (token: string | undefined): token is string => {
    const known = token === undefined ? undefined : issued.get(token);
    return known !== undefined && !revoked.has(token as string) && now() < known.expiresAt;
  };
  // GET /v3/auth/tokens (keystone/api/auth.py): X-Auth-Token must authenticate (401 otherwise); the
  // subject token is 404 when revoked, expired or unknown. A token may validate itself (policy
  // identity:validate_token allows the token's own subject).
  const validate = (request: IncomingMessage, response: ServerResponse): void => {
    validations += 1;
    const auth = request.headers['x-auth-token'];
    const subject = request.headers['x-subject-token'];
    if (!accepts(typeof auth === 'string' ? auth : undefined)) {
      return send(
        response,
        401,
        { error: { code: 401, message: GENERIC_401, title: 'Unauthorized' } },
        { 'WWW-Authenticate': `Keystone uri="${authUrl}"` },
      );
    }
    if (typeof subject !== 'string' || !accepts(subject)) {
      return send(response, 404, {
        error: { code: 404, message: `Could not find token: ${String(subject).slice(0, 8)}...`, title: 'Not Found' },
      });
    }
    send(response, 200, issued.get(subject)?.body ?? {}, { 'X-Subject-Token': subject, Vary: 'X-Auth-Token' });
  };
  const listener = (request: IncomingMessage, response: ServerResponse): void => {
    handle(request, response).catch((error: unknown) =>
      send(response, 500, { error: { code: 500, message: String(error), title: 'Internal Server Error' } }),
    );
  };
  const server: Server = options.tls
    ? createHttpsServer({ cert: options.tls.certPem, key: options.tls.keyPem }, listener)
    : createHttpServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  authUrl = `${url}/v3`;
  return {
    url,
    authUrl,
    get requests() {
      return requests;
    },
    received,
    tokens,
    get validations() {
      return validations;
    },
    revoke: (token) => void revoked.add(token),
    accepts: (token) => accepts(token),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
