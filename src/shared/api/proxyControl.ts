import { z } from 'zod';
import { GUARD_ACTIONS, GUARD_VERBS } from '../config/proxySchema.js';

// Every message between the broker and kubecred-proxy, declared once. The Go side
// (src/shim/proxy/channelmessages.go) and this table are held to the same JSON examples,
// test/fixtures/proxy-control/<direction>.<type>.<request|reply>[.<variant>].json: each
// test suite parses every example and fails when its side drops a field of it. To add a field:
// put it in the example (every optional field is in one), here, and in the Go struct.
//
// Each message is one JSON line. A request carries {id, type} beside its fields, a reply
// {id, reply: true, ok} and, when ok is false, {error, status?} instead of its fields; an event
// carries {type} and no id. Each side numbers its own requests.

/** The envelope of a request, a reply and an event; the fields of each message are beside it. */
export const requestEnvelope = z.object({ id: z.number().int(), type: z.string() });
export const replyEnvelope = z.object({
  id: z.number().int(),
  reply: z.literal(true),
  ok: z.boolean(),
  /** Why a request was refused, in words for kubectl's user; never a secret. */
  error: z.string().optional(),
  /** The HTTP status the proxy should answer kubectl with (the broker's refusals). */
  status: z.number().int().optional(),
});
export const eventEnvelope = z.object({ type: z.string() });

const caPair = z.object({ certPem: z.string(), keyPem: z.string() });
const profile = z.string().min(1);
const empty = z.object({});

const guardRule = z.object({
  name: z.string(),
  action: z.enum(GUARD_ACTIONS),
  verbs: z.array(z.enum(GUARD_VERBS)).optional(),
  resources: z.array(z.string()).optional(),
  namespaces: z.array(z.string()).optional(),
  names: z.array(z.string()).optional(),
});
/** A profile's guard: its rules, and until when it is lifted (null: it is not). */
const guard = z.object({ rules: z.array(guardRule), offUntil: z.string().nullable() });

/** A profile's credential for the cluster, in the proxy's memory only. */
const upstreamCredential = z.object({
  token: z.string().optional(),
  certificatePem: z.string().optional(),
  keyPem: z.string().optional(),
  expiresAt: z.string().nullable(),
});

const upstream = z.object({
  server: z.string(),
  caPem: z.string().nullable(),
  tlsServerName: z.string().nullable(),
  /** A token key's certificate chain, and its key type; absent with auth "credential". */
  certificateChainPem: z.string().optional(),
  keyType: z.enum(['rsa', 'ecdsa']).optional(),
  auth: z.literal('credential').optional(),
  tlsVersion: z.enum(['1.2', '1.3']).optional(),
  /**
   * The profile's own proxy (its proxyUrl, never with a password in it) and the password its
   * keychain keeps for a proxy URL that names a user only (its own, or without one the
   * environment's). Absent: the environment's proxy alone.
   */
  proxy: z.object({ url: z.string().optional(), password: z.string().optional() }).optional(),
});

/** What a confirm rule matched, as the guard names it, with what it sends (its body cut at 2 KiB). */
const guardedRequest = z.object({
  verb: z.string(),
  group: z.string(),
  resource: z.string(),
  subresource: z.string(),
  namespace: z.string(),
  name: z.string(),
  path: z.string(),
  method: z.string(),
  dryRun: z.boolean(),
  query: z.string().optional(),
  queryTruncated: z.boolean().optional(),
  digest: z.string().optional(),
  body: z
    .object({
      bytes: z.number().int(),
      mediaType: z.string(),
      encoding: z.string().optional(),
      text: z.boolean(),
      preview: z.string(),
      truncated: z.boolean(),
    })
    .optional(),
});

/** A request, and the fields of its reply when ok. */
interface Exchange<Request extends z.ZodType, Reply extends z.ZodType> {
  readonly request: Request;
  readonly reply: Reply;
}
const exchange = <Request extends z.ZodType, Reply extends z.ZodType>(
  request: Request,
  reply: Reply,
): Exchange<Request, Reply> => ({ request, reply });

/** What the broker asks of kubecred-proxy. */
export const BROKER_REQUESTS = {
  /** The local CA: the stored one, or null for a new one, which the reply carries (with its key). */
  init: exchange(z.object({ ca: caPair.nullable() }), z.object({ ca: caPair })),
  listen: exchange(
    z.object({
      profile,
      port: z.number().int(),
      upstream,
      headers: z.record(z.string(), z.string()).nullable(),
      guard: guard.optional(),
    }),
    z.object({ port: z.number().int() }),
  ),
  close: exchange(z.object({ profile }), empty),
  /** kubectl's local certificate; `caller` is reserved (always null). */
  issue: exchange(
    z.object({ profile, ttlSeconds: z.number().int(), caller: z.null() }),
    z.object({ certPem: z.string(), keyPem: z.string(), notAfter: z.string() }),
  ),
  /** Ends the profile's upstream connections; `certificates`: its local certificates and credential too. */
  revoke: exchange(z.object({ profile, reason: z.string().optional(), certificates: z.boolean().optional() }), empty),
  guard: exchange(guard.extend({ profile }), empty),
  /** The profile's credential, pushed when it changed. */
  credential: exchange(z.object({ profile, credential: upstreamCredential }), empty),
  stats: exchange(
    empty,
    z.object({ goroutines: z.number().int(), openFiles: z.number().int(), listeners: z.number().int() }),
  ),
} as const;

/** What kubecred-proxy asks of the broker. */
export const PROXY_REQUESTS = {
  /** A token key's signature for a handshake with the profile's cluster; TLS 1.3 brings the handshake. */
  sign: exchange(
    z.object({
      profile,
      scheme: z.string(),
      message: z.string(),
      handshake: z
        .object({ sent: z.string(), received: z.string(), serverSecret: z.string(), clientCertificate: z.string() })
        .optional(),
    }),
    z.object({ signature: z.string() }),
  ),
  /** The profile's credential: none held, the held one ends soon, or the cluster refused it. */
  credential: exchange(
    z.object({ profile, reason: z.enum(['missing', 'expiring', 'rejected']) }),
    z.object({ credential: upstreamCredential }),
  ),
  /** A confirm rule matched: the person's answer; `timedOut`: nobody answered. */
  confirm: exchange(
    z.object({ profile, rule: z.string(), request: guardedRequest, pid: z.number().int().optional() }),
    z.object({ allow: z.boolean(), reason: z.string().optional(), timedOut: z.boolean().optional() }),
  ),
} as const;

/** What kubecred-proxy tells the broker without asking. */
export const PROXY_EVENTS = {
  /** One proxied request, for the audit trail: never its headers or body. */
  audit: z.object({
    profile,
    caller: z.null(),
    certificate: z.string().nullable(),
    method: z.string(),
    path: z.string(),
    status: z.number().int(),
    ms: z.number().int(),
    upgrade: z.string().optional(),
    guard: z.object({ decision: z.string(), rule: z.string().optional() }).optional(),
    verb: z.string().optional(),
    resource: z.string().optional(),
    namespace: z.string().optional(),
    name: z.string().optional(),
    /** The request was a dry run, as the guard judged it (where the server reads it). */
    dryRun: z.boolean().optional(),
  }),
} as const;

export type BrokerRequestType = keyof typeof BROKER_REQUESTS;
export type ProxyRequestType = keyof typeof PROXY_REQUESTS;
export type BrokerRequest<T extends BrokerRequestType> = z.input<(typeof BROKER_REQUESTS)[T]['request']>;
export type BrokerReply<T extends BrokerRequestType> = z.output<(typeof BROKER_REQUESTS)[T]['reply']>;
export type ProxyRequest<T extends ProxyRequestType> = z.output<(typeof PROXY_REQUESTS)[T]['request']>;
export type ProxyReply<T extends ProxyRequestType> = z.input<(typeof PROXY_REQUESTS)[T]['reply']>;
