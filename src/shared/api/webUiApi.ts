import { z } from 'zod';
import { approvalPolicySchema } from '../config/schema.js';
import { interactionSchema, profileSummarySchema, registrySummarySchema } from './status.js';
import { pendingPromptSchema, pinFlagsSchema } from './prompts.js';

// The shapes of the web UI's HTTP API (uiContract.ts lists its operations). They live here,
// not in src/renderer, because the loopback server validates the same shapes the page sends.

export const webUiStateSchema = z.object({
  profiles: z.array(profileSummarySchema),
  /** Image registries of config.yaml and where their logins come from; never a password. */
  registries: z.array(registrySummarySchema).default([]),
  interactions: z.array(interactionSchema),
  prompts: z.array(pendingPromptSchema),
  /** Why config.yaml cannot be used now (the broker serves its last good version meanwhile); null when it is fine. */
  configError: z.string().nullable().default(null),
  /** The last failure of a login started from a page, by profile, until the next try. */
  loginErrors: z.record(z.string(), z.string()).default({}),
});
export type WebUiState = z.infer<typeof webUiStateSchema>;

export const sessionRequestSchema = z.object({ token: z.string().min(1).max(200) });
/**
 * The session secret: the page keeps it in sessionStorage and sends it as a bearer token.
 * Never a cookie: cookies are not scoped by port, so any other server on 127.0.0.1 would get it.
 */
export const sessionResponseSchema = z.object({
  session: z.string().min(32).max(200),
  /** Never sent back: the page checks with it that its event stream comes from this broker (sessionProof.ts). */
  proofKey: z.string().min(32).max(100),
  /** Names the session without granting anything, for the proof asked before the bearer goes out again. */
  sessionId: z.string().min(16).max(100),
  /**
   * Whether this page may allow an approval: false for a page whose link came through the socket
   * (any program of the user could have asked for it), which may deny only. It offers no Allow.
   */
  mayAllow: z.boolean(),
});

export const sessionProofRequestSchema = z.object({
  sessionId: z.string().min(16).max(100),
  challenge: z.string().regex(/^[A-Za-z0-9_-]{16,100}$/),
});
export const sessionProofResponseSchema = z.object({ proof: z.string().min(16).max(100) });

/** `field`: the form field a validation error is about (a dotted path like "issuer"), when known. */
export const apiErrorSchema = z.object({
  error: z.object({ code: z.string(), message: z.string(), hint: z.string().optional(), field: z.string().optional() }),
});

/** Fields of a config.yaml entry as a form sends them: text, or lists of text. */
const formFieldsSchema = z.record(z.string(), z.union([z.string(), z.array(z.string())]));

/**
 * A profile the main window adds. Only the shape is checked here; the server validates it
 * with config.yaml's own schema, so the file and the form can never disagree.
 */
export const newProfileRequestSchema = formFieldsSchema;

/**
 * A proxied profile's guard as the window writes it: its rules (`{ action, verbs?, resources?,
 * namespaces?, names?, name? }`), or null to take the guard away. Only the shape is checked
 * here, as for a new profile: the broker validates the rules with config.yaml's own schema.
 */
export const guardRulesRequestSchema = z.strictObject({ rules: z.array(formFieldsSchema).max(100).nullable() });
export type GuardRulesRequest = z.infer<typeof guardRulesRequestSchema>;

/** Changes to a profile: a value sets the field, null takes it out; fields not named stay. */
export const profileChangesSchema = z.record(z.string(), z.union([z.string(), z.array(z.string()), z.null()]));
export type ProfileChanges = z.infer<typeof profileChangesSchema>;

/**
 * The client certificate a profile presents, as its page shows it: public facts only (the
 * certificate is no secret; its key never leaves the store). Null: the profile has none stored.
 */
export const certificateFactsSchema = z.object({
  subject: z.string(),
  issuer: z.string(),
  notAfter: z.string(),
});
export type CertificateFacts = z.infer<typeof certificateFactsSchema>;
export const profileCertificateResponseSchema = z.object({ certificate: certificateFactsSchema.nullable() });

/** A registry login typed in the window: stored as `docker login` would store it (never shown again). */
export const registryLoginRequestSchema = z.strictObject({
  server: z.string().min(1).max(512),
  username: z.string().min(1).max(256),
  password: z.string().min(1).max(8192),
});
export type RegistryLoginRequest = z.infer<typeof registryLoginRequestSchema>;

/** The exec proxy turned on for a profile: its listener's port, the real server, the contexts now going through it. */
export const proxyTurnedOnSchema = z.object({
  port: z.number().int(),
  upstream: z.string(),
  contexts: z.array(z.string()),
});
export type ProxyTurnedOn = z.infer<typeof proxyTurnedOnSchema>;

/** A proxied profile's guard after a change: how many rules, and until when it is lifted (null: it holds). */
export const guardStateSchema = z.object({
  profile: z.string(),
  rules: z.number().int(),
  offUntil: z.string().nullable(),
});
export type GuardStateView = z.infer<typeof guardStateSchema>;

/** A profile's fields as config.yaml has them, for the edit form. */
export const profileConfigResponseSchema = z.object({ profile: z.record(z.string(), z.unknown()) });

/** One audit record as the page shows it: who asked, for which profile, and what happened. */
export const auditEntrySchema = z.object({
  time: z.string(),
  profile: z.string(),
  caller: z.object({
    pid: z.number().int().optional(),
    name: z.string().optional(),
    /** The executable the kernel ran, where known. */
    path: z.string().optional(),
    client: z.string(),
  }),
  outcome: z.enum(['served', 'denied', 'failed']),
  source: z.enum(['cache', 'provider']).optional(),
  error: z.string().optional(),
  /** A request kubecred-proxy passed to the cluster: the cluster's status, never headers or body. */
  request: z
    .object({ method: z.string(), path: z.string(), status: z.number().int(), upgrade: z.string().optional() })
    .optional(),
  /** A signature of the token's key for the proxy's handshake with the cluster. */
  signature: z.object({ token: z.string(), scheme: z.string() }).optional(),
  /** The profile was taken out of config.yaml: older records are of the profile that was removed. */
  removed: z.literal(true).optional(),
  /**
   * The guard's decision on a proxied request (allowed, refused, confirmed, declined, timed-out, unlocked;
   * by which rule), or a change of the guard itself: lifted until a time, back, lift-refused, changed
   * (to `rules` rules) or removed.
   */
  guard: z
    .object({
      decision: z.string(),
      rule: z.string().optional(),
      until: z.string().optional(),
      rules: z.number().int().optional(),
    })
    .optional(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;
export const auditResponseSchema = z.object({ records: z.array(auditEntrySchema) });

/** A configured hardware token: presence, login and PIN state. Object lists and values stay in the broker. */
export const tokenViewSchema = z.object({
  name: z.string(),
  label: z.string().optional(),
  present: z.boolean(),
  loggedIn: z.boolean(),
  flags: pinFlagsSchema.optional(),
  problem: z.string().optional(),
  /** While logged in: when the PIN's grace ends (ISO). */
  pinKeptUntil: z.string().optional(),
});
export type TokenView = z.infer<typeof tokenViewSchema>;
export const tokensResponseSchema = z.object({ tokens: z.array(tokenViewSchema) });

/** The main window's preferences, read from config.yaml and the login items. */
export const preferencesSchema = z.object({
  profiles: z.array(z.object({ name: z.string(), approval: approvalPolicySchema })),
  tokens: z.array(z.object({ name: z.string(), pinGrace: z.string() })),
  /**
   * `problem`: why it cannot be set here (macOS, Windows: the tray app does it); `where`: the
   * file or OS setting written, in the user's words.
   */
  startAtLogin: z.object({ enabled: z.boolean(), problem: z.string().optional(), where: z.string().optional() }),
});
export type Preferences = z.infer<typeof preferencesSchema>;

/** Changes to a token under tokens: (a value sets the field, null takes it out). */
export const tokenChangesSchema = z
  .strictObject({ pinGrace: z.union([z.string().min(1).max(32), z.null()]) })
  .partial();
export type TokenChanges = z.infer<typeof tokenChangesSchema>;

export const startAtLoginRequestSchema = z.strictObject({ enabled: z.boolean() });

/** One kubeconfig user the import moves into a profile; `secrets` names the fields, never a value. */
export const importMoveSchema = z.object({
  file: z.string(),
  user: z.string(),
  profile: z.string(),
  provider: z.enum(['static', 'oidc', 'exec', 'eks']),
  secrets: z.array(z.string()),
  /** What to act on afterwards, one sentence each. */
  notes: z.array(z.string()).default([]),
  /** Good news, one sentence each: what Kubecred now does itself. */
  news: z.array(z.string()).default([]),
  /** The contexts kubectl uses this user in: people know their clusters by context. */
  contexts: z.array(z.string()).default([]),
  /** The profile as config.yaml will hold it (a YAML list item), secret-looking values redacted. */
  profileText: z.string().default(''),
  /** A kubelogin user: what it becomes if the person chooses Kubecred's own login instead. */
  ownLogin: z.object({ secrets: z.array(z.string()), news: z.array(z.string()), profileText: z.string() }).optional(),
  /** Whether this user already is switched to Kubecred's own login. */
  ownLoginChosen: z.boolean().default(false),
});
export type ImportMove = z.infer<typeof importMoveSchema>;

/**
 * What the import wizard shows before anything moves. `diff` has every credential redacted;
 * `fingerprint` names this exact plan, so the import refuses to run a plan the user never saw.
 */
export const importPreviewSchema = z.object({
  files: z.array(z.string()),
  moves: z.array(importMoveSchema),
  left: z.array(z.object({ file: z.string(), user: z.string(), reason: z.string() })),
  diff: z.string(),
  fingerprint: z.string(),
});
export type ImportPreview = z.infer<typeof importPreviewSchema>;

const importUserKeySchema = z.strictObject({ file: z.string().max(4096), user: z.string().max(1024) });
export type ImportUserKey = z.infer<typeof importUserKeySchema>;

/**
 * Runs the plan the preview with this fingerprint showed, without the users the person
 * unchecked (`leaveOut`), and with Kubecred's own login for the kubelogin users in `ownLogin`.
 */
export const importRequestSchema = z.strictObject({
  fingerprint: z.string().min(1).max(128),
  leaveOut: z.array(importUserKeySchema).max(10_000).default([]),
  ownLogin: z.array(importUserKeySchema).max(10_000).default([]),
});

/** What `kubecred import --undo` reports: the files restored and the profiles removed. */
export const importUndoneSchema = z.object({
  restored: z.array(z.string()),
  profiles: z.array(z.string()),
  leftovers: z.array(z.string()),
});
export type ImportUndone = z.infer<typeof importUndoneSchema>;

/** After the import: each rewritten file's backup (0600, holds the old credentials) and files the user may delete. */
export const importResultSchema = z.object({
  moves: z.array(importMoveSchema),
  /** plaintext: the backup still holds credentials that moved out of the file. */
  backups: z.array(z.object({ file: z.string(), backup: z.string(), plaintext: z.boolean() })),
  leftFiles: z.array(z.string()),
});
export type ImportResult = z.infer<typeof importResultSchema>;

/** The keys `kubecred enroll` can make on a token; the window's form offers the same. */
export const ENROLL_KEY_TYPES = ['ec-p256', 'ec-p384', 'rsa-2048'] as const;
export type EnrollKeyType = (typeof ENROLL_KEY_TYPES)[number];

/** "Use a hardware key": a new profile whose key is made on a token and certified by the cluster. */
export const enrollRequestSchema = z.strictObject({
  profile: z.string().min(1).max(200),
  /** The context that reaches the cluster now: the certificate request goes through it. */
  context: z.string().min(1).max(500),
  token: z.string().min(1).max(200),
  user: z.string().min(1).max(500),
  groups: z.array(z.string().min(1).max(500)).max(50),
  keyType: z.enum(ENROLL_KEY_TYPES),
});
export type EnrollRequest = z.infer<typeof enrollRequestSchema>;
export const enrollStartedSchema = z.object({ started: z.literal(true) });

/** A context of the kubeconfig whose user is to get its credentials from the profile. */
export const installRequestSchema = z.strictObject({ context: z.string().min(1).max(500) });
/** Which user of which file now calls the profile. */
export const installedSchema = z.object({ context: z.string(), user: z.string(), file: z.string() });
export type ProfileInstalled = z.infer<typeof installedSchema>;

/** The contexts of the broker's kubeconfig files, by name. */
export const kubeconfigContextsSchema = z.object({ contexts: z.array(z.string()) });
