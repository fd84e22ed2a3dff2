import { z } from 'zod';

/**
 * Bodies of the broker's registry routes. The CLI forwards what it read on stdin as text;
 * the broker parses it, so every client of the protocols gets the same errors.
 */
const caller = { parentPid: z.number().int().positive().optional() };

export const providerCallSchema = z.strictObject({ request: z.string(), ...caller });
export const dockerServerCallSchema = z.strictObject({ serverUrl: z.string(), ...caller });
export const dockerStoreCallSchema = z.strictObject({ input: z.string() });
