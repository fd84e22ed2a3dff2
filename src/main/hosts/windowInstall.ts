import type { ProfileInstalled } from '../../shared/api/webUiApi.js';
import { readProfile } from '../config/configEditor.js';
import { BrokerError } from '../core/brokerError.js';
import { installProfile, InstallRefusedError } from '../kubeconfig/installUser.js';

export interface WindowInstallDeps {
  readonly configFile: string;
  readonly kubeconfigFiles: () => readonly string[];
  readonly backupDir: string;
  /** The program the kubeconfig's exec block runs: the native shim where there is one. */
  readonly shim: string;
  /** The exec proxy's local CA, for a proxied profile's context. */
  readonly localCa: () => Promise<string>;
  readonly now: () => Date;
}

/**
 * "Use for a context…" in the window: `kubecred install --profile --context` for a profile
 * config.yaml has. A proxied profile's context is pointed at its listener too, as install does;
 * a user with credentials of its own is refused (the window offers no --replace: Import keeps them).
 */
export async function installForContext(
  deps: WindowInstallDeps,
  profile: string,
  context: string,
): Promise<ProfileInstalled> {
  const proxy = (await readProfile(deps.configFile, profile)).proxy as { port?: unknown } | undefined;
  const port = typeof proxy?.port === 'number' ? proxy.port : undefined;
  try {
    const installed = await installProfile({
      files: deps.kubeconfigFiles(),
      profile,
      context,
      command: deps.shim,
      ...(port !== undefined ? { proxy: { server: `https://127.0.0.1:${port}`, caPem: await deps.localCa() } } : {}),
      backupDir: deps.backupDir,
      now: deps.now(),
    });
    return { context: installed.context, user: installed.user, file: installed.file };
  } catch (error) {
    if (error instanceof InstallRefusedError) throw new BrokerError('bad-request', error.message);
    throw error;
  }
}
