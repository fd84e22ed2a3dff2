import { z } from 'zod';
import { secretSourceEnvironmentSchema } from './secretSourceVariables.js';

/** POST /v1/credential: what a shim sends. It forwards, the broker interprets. */
export const credentialRequestSchema = z.object({
  argv: z.array(z.string().max(4096)).max(64),
  execInfo: z
    .string()
    .max(48 * 1024)
    .nullable(),
  stdinIsTerminal: z.boolean().default(false),
  parentPid: z.number().int().nonnegative().optional(),
  client: z.enum(['shim', 'node']).default('node'),
  /** The caller's DBUS_SESSION_BUS_ADDRESS, SOFTHSM2_CONF, OPENSC_CONF: to say when the broker's differ. */
  environment: secretSourceEnvironmentSchema.optional(),
});
export type CredentialRequest = z.infer<typeof credentialRequestSchema>;
