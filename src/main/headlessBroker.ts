import type { Logger } from './broker/logger.js';
import { composeBroker } from './composition.js';
import type { KubecredPaths } from './platform/paths.js';
import { brokerRoutes } from './server/brokerRoutes.js';
import { startBrokerServer, type RunningServer } from './server/brokerServer.js';
import type { SecretStore } from './secrets/secretStore.js';
import type { InteractionBoard } from './broker/interactionBoard.js';
import type { ApprovalUiPort, LoginUiPort, UiPort } from './broker/uiPort.js';
import { kubecredVersion } from './version.js';

/** The broker and its socket server, with no UI: `kubecred daemon`, and the base of the tray app. */
export interface HeadlessOptions {
  readonly keychain?: SecretStore;
  readonly interactions?: InteractionBoard;
  readonly ui?: UiPort & LoginUiPort & ApprovalUiPort;
}

export async function startHeadlessBroker(paths: KubecredPaths, logger: Logger, options: HeadlessOptions = {}): Promise<RunningServer> {
  const services = composeBroker({ paths, logger, ...options });
  const configError = await services.credentials.configError();
  if (configError) logger.warn('config.yaml is not usable; serving no profiles until it is fixed', { reason: configError });
  const identity = { version: kubecredVersion(), home: paths.home, socket: paths.socket, configPath: paths.configFile };
  const server = await startBrokerServer(paths, () => brokerRoutes(services, identity), logger);
  return {
    socket: server.socket,
    close: async () => {
      await server.close();
      await services.close();
    },
  };
}
