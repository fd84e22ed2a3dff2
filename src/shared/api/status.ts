import { z } from 'zod';
import { secretSourceEnvironmentSchema } from './secretSourceVariables.js';

// locked: the next credential needs a hardware token's PIN, which the broker does not hold.
export const PROFILE_STATES = ['ready', 'idle', 'error', 'locked'] as const;

export const profileSummarySchema = z.object({
  name: z.string(),
  provider: z.string(),
  state: z.enum(PROFILE_STATES),
  /** ISO time the soonest cached credential of the profile expires; null: none cached or no expiry. */
  expiresAt: z.string().nullable(),
  lastError: z.string().nullable(),
  /** The last attempt found no secret stored for it (a static token never set): the fix is to store one, not to retry. */
  secretMissing: z.boolean().optional(),
  /** What a locked profile waits for, and the command that gives it. */
  waitsOn: z.string().optional(),
  /** A locked profile's token is in no slot: it must be inserted before its PIN is any use. */
  tokenMissing: z.boolean().optional(),
  /** The broker can renew the credential without the user (no expiry warning needed). */
  silentRefresh: z.boolean().optional(),
  /** Log in means something: a person signs in (OIDC, Keystone) or types an MFA code or approves an SSO login (eks). */
  login: z.boolean().optional(),
  /** A login for it waits for a person now (a browser page, a device code): it is not signed out, it is signing in. */
  signingIn: z.boolean().optional(),
  /** Who is signed in (an OIDC email or user name), while a credential is cached. */
  account: z.string().nullable().optional(),
  /** config.yaml's description (an import says where the profile came from). */
  description: z.string().optional(),
  /** The kubeconfig contexts whose user calls this profile (the web UI's view of the broker's kubeconfig). */
  contexts: z.array(z.string()).optional(),
  /** Where the profile's secrets live, config.yaml's default applied: keychain, encrypted-file or token:<name>. */
  secretStore: z.string().optional(),
  /** The API servers of those contexts' clusters. */
  servers: z.array(z.string()).optional(),
  /**
   * The client certificate a profile with its key on a token presents (known once the exec
   * proxy has read it): when it began and ends, so every view can say when to renew it.
   */
  certificate: z.object({ notBefore: z.string(), notAfter: z.string() }).optional(),
  /** kubectl reaches the cluster through kubecred-proxy at this loopback port. */
  proxyPort: z.number().optional(),
  /** Whether kubecred-proxy listens on that port now: it starts at the profile's first kubectl. */
  proxyListening: z.boolean().optional(),
  /**
   * How the broker reaches each server outside the machine the profile needs (its issuer, its
   * Keystone, STS, the cluster behind kubecred-proxy): "through the proxy http://proxy:3128 (from
   * HTTPS_PROXY)" or "direct (...)", from the broker's environment; never a proxy's password.
   */
  network: z.array(z.object({ role: z.string(), url: z.string(), route: z.string() })).optional(),
  /** A wrapped plugin's proxy variables, inherited from the broker ("HTTPS_PROXY=http://proxy:3128"), without passwords. */
  pluginProxy: z.string().optional(),
  /** The proxy's guard: how many rules, until when it is lifted (null: it holds), and who lifted it. */
  guard: z.object({ rules: z.number(), offUntil: z.string().nullable(), liftedBy: z.string().optional() }).optional(),
});
export type ProfileSummary = z.infer<typeof profileSummarySchema>;

/** A registry of config.yaml and where its password comes from; never the password. */
export const registrySummarySchema = z.object({
  name: z.string(),
  matchImages: z.array(z.string()),
  /** command: a passwordCommand; store: the login docker/skopeo/kubecred registry login stored. */
  login: z.enum(['command', 'store']),
  username: z.string().optional(),
});
export type RegistrySummary = z.infer<typeof registrySummarySchema>;

export const interactionSchema = z.union([
  z.object({ profile: z.string(), kind: z.literal('browser'), url: z.string() }),
  z.object({
    profile: z.string(),
    kind: z.literal('device'),
    userCode: z.string(),
    verificationUri: z.string(),
    verificationUriComplete: z.string().optional(),
  }),
  z.object({
    profile: z.string(),
    kind: z.literal('message'),
    text: z.string(),
    /** Who speaks, when not the profile's plugin (an enrollment the window started). */
    title: z.string().optional(),
    /** An outcome kept for the person to read: the page offers to dismiss it. */
    dismissable: z.boolean().optional(),
    /** A wait the person may stop (an enrollment waiting on an admin): the page offers Cancel. */
    cancellable: z.boolean().optional(),
  }),
]);
export type Interaction = z.infer<typeof interactionSchema>;

export const statusSchema = z.object({
  version: z.string(),
  pid: z.number(),
  home: z.string(),
  socket: z.string(),
  configPath: z.string(),
  /** The config file could not be used; the broker serves the last good one. */
  configError: z.string().nullable(),
  profiles: z.array(profileSummarySchema),
  registries: z.array(registrySummarySchema).default([]),
  /** Logins waiting on the user: a page to open, or a code to enter. */
  interactions: z.array(interactionSchema).default([]),
  /** Why the broker's last keychain call failed (null: it answered); its environment may differ from the shell's. */
  keychainError: z.string().nullable().default(null),
  /** The broker's DBUS_SESSION_BUS_ADDRESS, SOFTHSM2_CONF, OPENSC_CONF (addresses and paths): a shell compares its own. */
  secretSources: secretSourceEnvironmentSchema.default({}),
});
export type BrokerStatus = z.infer<typeof statusSchema>;

export const secretWriteSchema = z.object({
  value: z
    .string()
    .min(1)
    .max(256 * 1024),
});

export const passphraseSchema = z.object({ passphrase: z.string().min(1).max(1024) });
/** A code from an MFA device (six digits; STS says the rest), however it was typed. */
export const mfaCode = z
  .string()
  .trim()
  .regex(/^\d{6}$/, { message: 'an MFA code is six digits' });
/** An MFA code typed in a terminal. */
export const mfaCodeSchema = z.object({ code: mfaCode });
export const pinSchema = z.object({ pin: z.string().min(1).max(256) });
/** Lift a profile's guard for `forSeconds` (at most 12 h), or put it back (`off: false`). */
export const guardChangeSchema = z.discriminatedUnion('off', [
  z.strictObject({
    off: z.literal(true),
    forSeconds: z
      .number()
      .int()
      .min(1)
      .max(12 * 3600),
  }),
  z.strictObject({ off: z.literal(false) }),
]);
export type GuardChange = z.infer<typeof guardChangeSchema>;
/** A login provider's secret typed in a terminal (Keystone's password), taken as typed. */
export const loginSecretSchema = z.object({ secret: z.string().min(1).max(4096) });
