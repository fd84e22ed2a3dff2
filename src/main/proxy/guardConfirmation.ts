/** A request as the proxy's guard names it (from its method and URL, as the API server does). */
export interface GuardedRequest {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly dryRun: boolean;
}

/** A request a guard's confirm rule matched, for the user to allow or decline. */
export interface GuardConfirmation {
  readonly profile: string;
  readonly rule: string;
  readonly request: GuardedRequest;
  /** The program on the other end of the connection, where the OS names it. */
  readonly pid?: number;
}

const text = (value: unknown, max: number) => (typeof value === 'string' ? value.slice(0, max) : '');

/** The proxy's words, bounded: it is our program, but a prompt must not be made of whatever it sends. */
export function guardedRequest(raw: Readonly<Record<string, unknown>>): GuardedRequest {
  return {
    verb: text(raw.verb, 32),
    group: text(raw.group, 253),
    resource: text(raw.resource, 63),
    subresource: text(raw.subresource, 63),
    namespace: text(raw.namespace, 63),
    name: text(raw.name, 253),
    method: text(raw.method, 16),
    path: text(raw.path, 512),
    dryRun: raw.dryRun === true,
  };
}

/** `delete pods "web" in namespace "default"`: what a prompt and a refusal say the request does. */
export function describeGuardedRequest(request: GuardedRequest): string {
  if (!request.resource) return `${request.method} ${request.path}`;
  const resource = `${request.resource}${request.group ? `.${request.group}` : ''}${request.subresource ? `/${request.subresource}` : ''}`;
  const name = request.name ? ` "${request.name}"` : '';
  const namespace =
    request.namespace && request.resource !== 'namespaces' ? ` in namespace "${request.namespace}"` : '';
  return `${request.verb} ${resource}${name}${namespace}${request.dryRun ? ' (dry run)' : ''}`;
}
