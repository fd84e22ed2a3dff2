import { z } from 'zod';

/**
 * The variables that decide where the broker's secrets come from: the session bus (the OS
 * keychain) and the PKCS#11 modules' configuration (SOFTHSM2_CONF, OPENSC_CONF). A broker
 * started from another environment than the caller's sees another keychain or other tokens.
 * Their values are addresses and paths, never secrets, so they may be compared and named.
 */
export const SECRET_SOURCE_VARIABLES = ['DBUS_SESSION_BUS_ADDRESS', 'SOFTHSM2_CONF', 'OPENSC_CONF'] as const;
export type SecretSourceVariable = (typeof SECRET_SOURCE_VARIABLES)[number];

const value = z.string().max(4096).optional();
export const secretSourceEnvironmentSchema = z.object({
  DBUS_SESSION_BUS_ADDRESS: value,
  SOFTHSM2_CONF: value,
  OPENSC_CONF: value,
});
export type SecretSourceEnvironment = z.infer<typeof secretSourceEnvironmentSchema>;

/** The variables of `env` that say where secrets come from; unset ones are left out. */
export function secretSourceEnvironment(env: Readonly<Record<string, string | undefined>>): SecretSourceEnvironment {
  const picked: Record<string, string> = {};
  for (const name of SECRET_SOURCE_VARIABLES) {
    const found = env[name];
    if (found) picked[name] = found;
  }
  return picked;
}

/**
 * The variables the caller has set to something other than the broker has. One the caller
 * lacks is not named: restarting the broker from that shell would lose it.
 */
export function differingVariables(
  caller: SecretSourceEnvironment,
  broker: SecretSourceEnvironment,
): SecretSourceVariable[] {
  return SECRET_SOURCE_VARIABLES.filter((name) => caller[name] !== undefined && caller[name] !== broker[name]);
}

/** "the broker (pid 42) was started with a different SOFTHSM2_CONF than this shell". */
export function describeDifference(pid: number, names: readonly SecretSourceVariable[]): string {
  const list = names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}`;
  return `the broker (pid ${pid}) was started with a different ${list} than this shell`;
}

export const RESTART_FROM_THIS_SHELL = 'restart it from this shell so it gets the same: kubecred restart';
