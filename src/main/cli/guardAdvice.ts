import { loadServedConfig } from '../config/configSource.js';
import { noGuardError } from '../broker/noGuardAdvice.js';
import { kubeconfigFiles } from '../kubeconfig/kubeconfigFiles.js';
import { readKubeconfigs } from '../kubeconfig/kubeconfigUsers.js';
import { usesByProfile } from '../kubeconfig/profileContexts.js';
import { readTextWithMode } from '../platform/readTextWithMode.js';
import { currentPlatformEnv } from '../platform/paths.js';
import type { CliContext } from './io.js';

/**
 * Refuses a profile that has no guard with the command that gives it one, its kubeconfig
 * context filled in where one uses the profile (or is named after it): the broker, which reads
 * no kubeconfig, can only say "<context>". An unknown profile is left to the broker's words.
 */
export async function refuseUnguardedProfile({ io, paths }: CliContext, profileName: string): Promise<void> {
  const { config } = await loadServedConfig(paths.configFile, paths.stateDir);
  const profile = config?.profiles.find((candidate) => candidate.name === profileName);
  if (!profile || profile.guard) return;
  throw noGuardError(profile, profile.proxy ? undefined : await contextOf(io.env, profileName));
}

async function contextOf(env: NodeJS.ProcessEnv, profile: string): Promise<string | undefined> {
  const readings = await readKubeconfigs(kubeconfigFiles({ ...currentPlatformEnv(), env }), {
    read: readTextWithMode,
  });
  const using = usesByProfile(readings).get(profile)?.contexts[0];
  if (using) return using;
  const named = readings.some(
    (reading) => reading.state === 'read' && reading.contexts.some((context) => context.name === profile),
  );
  return named ? profile : undefined;
}
