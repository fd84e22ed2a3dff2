import { z } from 'zod';
import { EXEC_API_VERSIONS } from '../execCredential.js';
import { parseDuration } from '../duration.js';

const profileName = z
  .string()
  .regex(/^[a-z0-9]([a-z0-9._-]{0,61}[a-z0-9])?$/, {
    message: 'a profile name is 1-63 lower-case letters, digits, ".", "_" or "-", starting and ending with a letter or digit',
  });

const duration = z.string().refine((text) => parseDuration(text) !== undefined, {
  message: 'a duration looks like 30s, 15m, 1h or 1h30m',
});

const tokenName = z.string().regex(/^[a-z0-9]([a-z0-9._-]{0,61}[a-z0-9])?$/, { message: 'a token name is 1-63 lower-case letters, digits, ".", "_" or "-"' });

/** Where a profile's secrets live: the OS keychain, the encrypted file, or a PKCS#11 token. */
const secretStoreRef = z.string().regex(/^(keychain|encrypted-file|token:[a-z0-9]([a-z0-9._-]{0,61}[a-z0-9])?)$/, {
  message: 'a secret store is keychain, encrypted-file or token:<token name>',
});

export const tokenSchema = z
  .strictObject({
    name: tokenName,
    /** Path of the PKCS#11 module (.so, .dylib, .dll), e.g. /usr/lib/softhsm/libsofthsm2.so. */
    module: z.string().min(1),
    label: z.string().min(1).max(32).optional(),
    serial: z.string().min(1).max(16).optional(),
    /** How long the PIN is kept in broker memory after a successful login. */
    pinGrace: duration.default('15m'),
  })
  .refine((t) => t.label !== undefined || t.serial !== undefined, { message: 'name the token by label or serial' });
export type TokenConfig = z.infer<typeof tokenSchema>;

const staticProfile = z.strictObject({
  name: profileName,
  provider: z.literal('static'),
  description: z.string().optional(),
  secretStore: secretStoreRef.optional(),
  /** The client certificate and its private key as objects on a PKCS#11 token, found by label. */
  tokenCertificate: z.strictObject({ token: tokenName, label: z.string().min(1) }).optional(),
});

/** kubeconfig's exec env is a list of {name, value}; a map is accepted too. */
const envList = z.union([
  z.array(z.strictObject({ name: z.string().min(1), value: z.string() })),
  z.record(z.string(), z.string()).transform((map) => Object.entries(map).map(([name, value]) => ({ name, value }))),
]);

const execProfile = z.strictObject({
  name: profileName,
  provider: z.literal('exec'),
  description: z.string().optional(),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: envList.default([]),
  apiVersion: z.enum(EXEC_API_VERSIONS).default('client.authentication.k8s.io/v1'),
  /** How long to keep a credential that comes without expirationTimestamp. */
  ttl: duration.default('5m'),
  timeout: duration.default('60s'),
});

export const profileSchema = z.discriminatedUnion('provider', [staticProfile, execProfile]);
export type ProfileConfig = z.infer<typeof profileSchema>;
export type StaticProfileConfig = z.infer<typeof staticProfile>;
export type ExecProfileConfig = z.infer<typeof execProfile>;

export const configSchema = z
  .strictObject({
    /** The store for profiles that name none. encrypted-file is for machines with no keychain. */
    secretStore: z.enum(['keychain', 'encrypted-file']).default('keychain'),
    encryptedFile: z.strictObject({ path: z.string().min(1).optional() }).optional(),
    tokens: z.array(tokenSchema).default([]),
    profiles: z.array(profileSchema).default([]),
  })
  .superRefine((config, ctx) => {
    const seen = new Set<string>();
    const tokens = new Set(config.tokens.map((t) => t.name));
    config.tokens.forEach((token, index) => {
      if (config.tokens.findIndex((t) => t.name === token.name) !== index) ctx.addIssue({ code: 'custom', path: ['tokens', index, 'name'], message: `token "${token.name}" is defined twice` });
    });
    config.profiles.forEach((profile, index) => {
      if (seen.has(profile.name)) {
        ctx.addIssue({ code: 'custom', path: ['profiles', index, 'name'], message: `profile "${profile.name}" is defined twice` });
      }
      seen.add(profile.name);
      if (profile.provider !== 'static') return;
      const storeToken = profile.secretStore?.startsWith('token:') ? profile.secretStore.slice(6) : undefined;
      if (storeToken && !tokens.has(storeToken)) ctx.addIssue({ code: 'custom', path: ['profiles', index, 'secretStore'], message: `no token "${storeToken}" under tokens:` });
      if (profile.tokenCertificate && !tokens.has(profile.tokenCertificate.token)) {
        ctx.addIssue({ code: 'custom', path: ['profiles', index, 'tokenCertificate', 'token'], message: `no token "${profile.tokenCertificate.token}" under tokens:` });
      }
    });
  });
export type KubecredConfig = z.infer<typeof configSchema>;

/** What an absent or empty config.yaml means. */
export const EMPTY_CONFIG: KubecredConfig = configSchema.parse({});
