import { stringify } from 'yaml';
import { redactedArguments, redactedEnvValue } from './redactSecrets.js';

/**
 * The profiles an import adds, as config.yaml will hold them, for the dry run and the wizard.
 * Secrets go to the secret store, never here; a wrapped plugin's arguments and env do come
 * here as they are, so the secret-looking ones among them are hidden as in the diff.
 */
export function addedProfilesText(profiles: readonly Record<string, unknown>[]): string {
  if (profiles.length === 0) return '';
  const items = profiles.map((profile) => profileItemText(profile).replace(/^(?=.)/gm, '  '));
  return `profiles:\n${items.join('')}`;
}

/** One profile as an item of config.yaml's profiles list (`- name: ...`), redacted the same way. */
export function profileItemText(profile: Record<string, unknown>): string {
  return stringify([shownProfile(profile)]);
}

function shownProfile(profile: Record<string, unknown>): Record<string, unknown> {
  const { args, env } = profile;
  return {
    ...profile,
    ...(Array.isArray(args) ? { args: redactedArguments(args.map(String)) } : {}),
    ...(Array.isArray(env)
      ? {
          env: (env as Array<{ name?: unknown; value?: unknown }>).map((entry) => ({
            ...entry,
            value: redactedEnvValue(String(entry.name), String(entry.value ?? '')),
          })),
        }
      : {}),
  };
}
