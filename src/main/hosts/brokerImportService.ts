import path from 'node:path';
import { findOnPath } from '../platform/findOnPath.js';
import type { Logger } from '../core/logger.js';
import type { BrokerServices } from '../broker/brokerServices.js';
import { currentPlatformEnv, type KubecredPaths } from '../platform/paths.js';
import { configProfilePorts } from '../kubeconfig/configProfilePorts.js';
import { importService, type ImportService } from '../kubeconfig/importService.js';
import { kubeconfigFiles } from '../kubeconfig/kubeconfigFiles.js';
import { workerPreviewer, type PreviewInput } from '../kubeconfig/workerPreviewer.js';
import type { ImportPreview } from '../../shared/api/webUiApi.js';

/**
 * The import wizard inside the broker: profiles go into config.yaml and secrets straight into
 * the broker's stores; the kubeconfig files are those of the broker's own environment.
 */
export function brokerImportService(
  services: Pick<BrokerServices, 'credentials' | 'profiles' | 'restoreLiveRefreshTokens'>,
  paths: KubecredPaths,
  command: string,
  logger: Logger,
): ImportService {
  return importService({
    files: () => kubeconfigFiles(currentPlatformEnv()),
    command,
    caDir: path.join(paths.home, 'ca'),
    findCommand: (name) => findOnPath(name),
    // Planning a big kubeconfig takes seconds: not on the thread that answers kubectl.
    ...withPreviewer(workerPreviewer()),
    backupDir: paths.kubeconfigBackups,
    restoreLiveRefreshTokens: () => services.restoreLiveRefreshTokens(),
    ports: {
      ...configProfilePorts(paths.configFile, (profile) =>
        logger.info('profile added by the kubeconfig import', { profile }),
      ),
      removeProfile: (profile) => services.profiles.remove(profile, { caller: {}, client: 'webui' }),
      storeSecret: (profile, field, value) => services.credentials.setSecret(profile, field, value),
      deleteSecret: async (profile, field) => void (await services.credentials.deleteSecret(profile, field)),
    },
  });
}

function withPreviewer(previewer: ((input: PreviewInput) => Promise<ImportPreview>) | undefined) {
  return previewer ? { previewer, path: process.env.PATH ?? '' } : {};
}
