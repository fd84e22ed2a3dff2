import type { GuardedRequestView } from '../../shared/api/prompts.js';

/** A request's body as the proxy shows it: printable text cut at 2 KiB, or only its size and type. */
export type GuardedBody = GuardedRequestView['body'];

/**
 * A request as the proxy's guard names it (from its method and URL, as the API server does),
 * with what it sends: its query, body and the digest of them that one answer is bound to.
 */
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
  readonly query: string;
  readonly queryTruncated: boolean;
  /** SHA-256 (hex) over method, path, query, media type and body; '' when the proxy sent none. */
  readonly digest: string;
  readonly body: GuardedBody;
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
    ...guardedQuery(raw),
    digest: typeof raw.digest === 'string' && /^[0-9a-f]{64}$/.test(raw.digest) ? raw.digest : '',
    body: guardedBody(typeof raw.body === 'object' && raw.body ? (raw.body as Record<string, unknown>) : {}),
  };
}

/** The proxy cuts a preview at 2 KiB and a query at 1 KiB (bytes): more characters is not its text. */
const PREVIEW_MAX_CHARS = 2048;
const QUERY_MAX_CHARS = 1024;

function guardedQuery(raw: Readonly<Record<string, unknown>>): { query: string; queryTruncated: boolean } {
  const { shown, cut } = cutText(raw.query, QUERY_MAX_CHARS);
  return { query: shown, queryTruncated: cut || raw.queryTruncated === true };
}

function guardedBody(raw: Readonly<Record<string, unknown>>): GuardedBody {
  const bytes = typeof raw.bytes === 'number' && Number.isSafeInteger(raw.bytes) && raw.bytes >= 0 ? raw.bytes : 0;
  const encoding = text(raw.encoding, 64);
  // A compressed body is never shown as text, whatever the proxy says.
  const isText = raw.text === true && !encoding;
  const { shown, cut } = cutText(isText ? raw.preview : '', PREVIEW_MAX_CHARS);
  return {
    bytes,
    mediaType: text(raw.mediaType, 128),
    ...(encoding ? { encoding } : {}),
    text: isText,
    preview: shown,
    truncated: isText && (cut || raw.truncated === true),
  };
}

function cutText(value: unknown, max: number): { shown: string; cut: boolean } {
  const whole = typeof value === 'string' ? value : '';
  return { shown: whole.slice(0, max), cut: whole.length > max };
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
