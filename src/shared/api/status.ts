import { z } from 'zod';

export const PROFILE_STATES = ['ready', 'idle', 'error'] as const;

export const profileSummarySchema = z.object({
  name: z.string(),
  provider: z.string(),
  state: z.enum(PROFILE_STATES),
  /** ISO time the soonest cached credential of the profile expires; null: none cached or no expiry. */
  expiresAt: z.string().nullable(),
  lastError: z.string().nullable(),
});
export type ProfileSummary = z.infer<typeof profileSummarySchema>;

export const statusSchema = z.object({
  version: z.string(),
  pid: z.number(),
  home: z.string(),
  socket: z.string(),
  configPath: z.string(),
  /** The config file could not be used; the broker serves the last good one. */
  configError: z.string().nullable(),
  profiles: z.array(profileSummarySchema),
});
export type BrokerStatus = z.infer<typeof statusSchema>;

export const secretWriteSchema = z.object({ value: z.string().min(1).max(256 * 1024) });

export const passphraseSchema = z.object({ passphrase: z.string().min(1).max(1024) });
export const pinSchema = z.object({ pin: z.string().min(1).max(256) });
