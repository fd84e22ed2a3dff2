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

const staticProfile = z.strictObject({
  name: profileName,
  provider: z.literal('static'),
  description: z.string().optional(),
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
    profiles: z.array(profileSchema).default([]),
  })
  .superRefine((config, ctx) => {
    const seen = new Set<string>();
    config.profiles.forEach((profile, index) => {
      if (seen.has(profile.name)) {
        ctx.addIssue({ code: 'custom', path: ['profiles', index, 'name'], message: `profile "${profile.name}" is defined twice` });
      }
      seen.add(profile.name);
    });
  });
export type KubecredConfig = z.infer<typeof configSchema>;
