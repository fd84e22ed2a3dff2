import { z } from 'zod';

// The one contract for the questions the broker asks the user (PIN, store passphrase,
// approval, a login provider's form), for every window: a browser tab and the tray app's
// windows load the same page from the same loopback server. Pure zod (no DOM, no node:), so
// the page and the main process both import it.

/** The PIN state a token reports (countLow, finalTry, locked): the broker's and the page's one type. */
export const pinFlagsSchema = z.strictObject({ countLow: z.boolean(), finalTry: z.boolean(), locked: z.boolean() });
export type PinFlags = z.infer<typeof pinFlagsSchema>;

/** `path`: the executable the kernel ran, where known; the prompt shows it so a look-alike name stands out. */
export const promptCallerSchema = z.strictObject({
  pid: z.number().int().optional(),
  name: z.string().optional(),
  path: z.string().optional(),
});

/**
 * One field of a login form (Keystone's missing settings). `value` is a suggestion for plain
 * fields only: a secret field's value never travels to the page.
 */
export const formFieldViewSchema = z.strictObject({
  name: z.string().min(1).max(64),
  label: z.string(),
  secret: z.boolean(),
  value: z.string().optional(),
  /** A yes-or-no question, answered "yes" or "no" (a checkbox). */
  yesNo: z.boolean().optional(),
});

export const promptIdSchema = z.string().min(1).max(64);

/**
 * What a guarded request sends, as kubecred-proxy read it before asking: the question is bound
 * to these bytes (`digest`, SHA-256 over method, path, query, media type and body), and the
 * person reads the body (a PATCH's patch) before answering. `preview` is printable text, cut
 * at 2 KiB (`truncated`); a body that is not text shows only its size and type.
 */
export const guardedRequestViewSchema = z.strictObject({
  method: z.string(),
  path: z.string(),
  query: z.string(),
  queryTruncated: z.boolean(),
  digest: z.string(),
  body: z.strictObject({
    bytes: z.number().int().min(0),
    mediaType: z.string(),
    /** Content-Encoding, when the body is compressed: then it is not shown. */
    encoding: z.string().optional(),
    text: z.boolean(),
    preview: z.string(),
    truncated: z.boolean(),
  }),
});
export type GuardedRequestView = z.infer<typeof guardedRequestViewSchema>;

// Every view says how many callers wait on its one answer and when it answers itself
// (cancel / deny); it never carries a secret.
const common = { id: promptIdSchema, waiting: z.number().int().min(0), expiresAt: z.string() };

export const pendingPromptSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    ...common,
    kind: z.literal('pin'),
    token: z.string(),
    tokenLabel: z.string(),
    flags: pinFlagsSchema,
    caller: z.string().optional(),
    profile: z.string().optional(),
  }),
  /** `create`: a new store, so the UI asks twice. */
  z.strictObject({ ...common, kind: z.literal('passphrase'), store: z.string(), create: z.boolean() }),
  // One prompt per profile: `callers` lists every program waiting on the answer (`caller` is the first).
  z.strictObject({
    ...common,
    kind: z.literal('approval'),
    profile: z.string(),
    cluster: z.string().optional(),
    /**
     * A request a guard's confirm rule matched: allowed or declined once, by itself, in a prompt
     * of its own. `similar`: other open prompts about an identical request (same digest), each
     * answered on its own; said only so the person is not surprised to be asked again.
     */
    guard: z
      .strictObject({
        rule: z.string(),
        action: z.string(),
        request: guardedRequestViewSchema.optional(),
        similar: z.number().int().min(0).optional(),
      })
      .optional(),
    caller: promptCallerSchema,
    callers: z.array(promptCallerSchema).min(1),
  }),
  z.strictObject({
    ...common,
    kind: z.literal('form'),
    profile: z.string(),
    title: z.string(),
    detail: z.string().optional(),
    fields: z.array(formFieldViewSchema),
  }),
  /**
   * The token refused the PIN just typed in a window: the person who typed it reads why and
   * what is left (the tries, what to do) where they typed it. Nothing waits on it; Close (a
   * cancel) or the timeout ends it. The broker never tries the PIN again.
   */
  z.strictObject({
    ...common,
    kind: z.literal('pin-refused'),
    token: z.string(),
    tokenLabel: z.string(),
    message: z.string(),
    hint: z.string().optional(),
    flags: pinFlagsSchema.optional(),
    caller: z.string().optional(),
    profile: z.string().optional(),
  }),
]);
export type PendingPrompt = z.infer<typeof pendingPromptSchema>;

/**
 * What the user answers. A PIN, passphrase, approval or form must match the prompt's kind;
 * cancel fits any prompt (a PIN, passphrase or form then resolves null, an approval denies).
 */
export const promptAnswerSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('pin'), pin: z.string().min(1).max(256) }),
  z.strictObject({ kind: z.literal('passphrase'), passphrase: z.string().min(1).max(1024) }),
  z.strictObject({
    kind: z.literal('approval'),
    allow: z.boolean(),
    forMinutes: z
      .number()
      .int()
      .min(1)
      .max(24 * 60)
      .optional(),
  }),
  /** A form's values by field name; the broker keeps only the fields it asked for. */
  z.strictObject({ kind: z.literal('form'), values: z.record(z.string().max(64), z.string().max(4096)) }),
  z.strictObject({ kind: z.literal('cancel') }),
]);
export type PromptAnswer = z.infer<typeof promptAnswerSchema>;
