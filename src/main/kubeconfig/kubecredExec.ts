import path from 'node:path';
import type { ExecApiVersion } from '../../shared/execCredential.js';

/** The versions Kubecred writes into a kubeconfig's exec block: v1alpha1 is only read, from old clients. */
export type InstallApiVersion = Exclude<ExecApiVersion, 'client.authentication.k8s.io/v1alpha1'>;

export const INSTALL_HINT =
  'This user gets its credentials from Kubecred (a desktop credential broker). Install Kubecred and add the profile named in args, or ask for a kubeconfig with your own credentials.';

/** The kubeconfig `exec` block that makes kubectl ask Kubecred for a profile's credential. */
export function kubecredExecBlock({
  command,
  profile,
  apiVersion = 'client.authentication.k8s.io/v1',
  env,
}: {
  command: string;
  profile: string;
  apiVersion?: InstallApiVersion;
  env?: readonly { name: string; value: string }[];
}): Record<string, unknown> {
  return {
    apiVersion,
    command,
    args: ['credential', profile],
    ...(env && env.length > 0 ? { env: env.map((e) => ({ ...e })) } : {}),
    interactiveMode: 'IfAvailable',
    provideClusterInfo: true,
    installHint: INSTALL_HINT,
  };
}

const KUBECRED_COMMANDS = new Set(['kubecred', 'kubecred-shim', 'kubecred-shim.exe', 'kubecred.exe', 'kubecred.cmd']);

/** The profile a kubeconfig exec block asks Kubecred for, or undefined when it calls another plugin. */
export function kubecredProfileOf(exec: unknown): string | undefined {
  if (typeof exec !== 'object' || exec === null) return undefined;
  const { command, args } = exec as { command?: unknown; args?: unknown };
  if (typeof command !== 'string' || !KUBECRED_COMMANDS.has(path.basename(command.replaceAll('\\', '/'))))
    return undefined;
  if (!Array.isArray(args) || args[0] !== 'credential' || typeof args[1] !== 'string') return undefined;
  return args[1];
}

/** `v1`, `v1beta1` or the full group/version, as a user types it for --api-version; undefined otherwise. */
export function parseExecApiVersion(value: string): InstallApiVersion | undefined {
  const version = value.replace(/^client\.authentication\.k8s\.io\//, '');
  return version === 'v1' || version === 'v1beta1' ? `client.authentication.k8s.io/${version}` : undefined;
}
