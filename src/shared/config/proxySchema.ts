import { z } from 'zod';

/**
 * kubectl reaches the cluster through kubecred-proxy on 127.0.0.1:<port>, and holds only a
 * short-lived certificate for it. The proxy authenticates upstream: with the key on a token
 * (a static profile with tokenCertificate), or with the profile's credential (a token or a
 * client certificate from its provider), which kubectl then never sees.
 */
export const proxySchema = z.strictObject({
  /** Stable: kubectl's discovery cache is keyed by the server's host and port. */
  port: z.number().int().min(1024).max(65535),
  /** The real API server. */
  server: z.url({ protocol: /^https$/, message: "the cluster's server is an https:// URL" }),
  /** Its CA (PEM file); the system's roots when absent. */
  caFile: z.string().min(1).optional(),
  tlsServerName: z.string().min(1).optional(),
  /**
   * "1.2" for a token without RSA-PSS (TLS 1.3 requires it): the handshake stays at TLS 1.2
   * and RSA keys sign PKCS#1 v1.5. TLS 1.3 when absent; never one falling back to the other.
   */
  tlsVersion: z.enum(['1.2', '1.3'], { message: 'proxy.tlsVersion is "1.2" or "1.3"' }).optional(),
  /** Added to every request (a header kubectl sent under the same name is replaced). */
  headers: z
    .record(
      z.string().regex(/^[A-Za-z0-9-]{1,64}$/, { message: 'a header name is letters, digits and "-"' }),
      z.string().max(4096),
    )
    .optional(),
});
export type ProxyConfig = z.infer<typeof proxySchema>;

/** The verbs of the Kubernetes API, as the guard names what a request does. */
export const GUARD_VERBS = [
  'get',
  'list',
  'watch',
  'create',
  'update',
  'patch',
  'delete',
  'deletecollection',
  '*',
] as const;

/** read-only refuses every write (dry runs excepted); confirm asks the user; deny refuses. */
export const GUARD_ACTIONS = ['read-only', 'confirm', 'deny'] as const;

const ruleName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,62}$/, {
  message: 'a rule name is up to 63 letters, digits, spaces, ".", "_" or "-"',
});

const guardRuleSchema = z.strictObject({
  name: ruleName.optional(),
  action: z.enum(GUARD_ACTIONS, { message: 'a guard rule action is read-only, confirm or deny' }),
  verbs: z.array(z.enum(GUARD_VERBS, { message: `a verb is one of ${GUARD_VERBS.join(', ')}` })).optional(),
  /** pods, pods/exec, pods/*, deployments.apps, *. */
  resources: z
    .array(
      z.string().regex(/^(\*|[a-z0-9-]+(\.[a-z0-9.-]+)?(\/([a-z0-9-]+|\*))?)$/, {
        message: 'a resource looks like pods, pods/exec, pods/*, deployments.apps or *',
      }),
    )
    .optional(),
  namespaces: z.array(z.string().min(1).max(63)).optional(),
  names: z.array(z.string().min(1).max(253)).optional(),
});

export type GuardRule = z.infer<typeof guardRuleSchema> & { readonly name: string };

/**
 * Rules the proxy applies to each request of the profile, whatever program sent it. Every rule
 * that matches applies, and the strictest decides: deny, then read-only, then confirm.
 * `guard: read-only` is short for one read-only rule over everything.
 */
export const guardSchema = z
  .preprocess(
    (value) => (value === 'read-only' ? { rules: [{ action: 'read-only' }] } : value),
    z.strictObject(
      { rules: z.array(guardRuleSchema).min(1, { message: 'a guard has at least one rule' }) },
      { message: 'a guard is "read-only" or { rules: [...] }' },
    ),
  )
  .transform(({ rules }) => ({
    // A refusal quotes its rule, so every rule has a name.
    rules: rules.map((rule, index): GuardRule => ({ ...rule, name: rule.name ?? defaultRuleName(rule, index) })),
  }));
export type GuardConfig = z.output<typeof guardSchema>;

function defaultRuleName(rule: { action: string }, index: number): string {
  return index === 0 ? rule.action : `${rule.action} #${index + 1}`;
}
