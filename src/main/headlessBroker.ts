import { HeadlessUi, type UrlOpener } from './broker/headlessUi.js';
import { InteractionBoard } from './broker/interactionBoard.js';
import type { Logger } from './broker/logger.js';
import type { ApprovalUiPort, LoginUiPort, UiPort } from './broker/uiPort.js';
import { composeBroker, type BrokerServices } from './composition.js';
import { BrowserOpener } from './platform/browserOpener.js';
import type { KubecredPaths } from './platform/paths.js';
import { brokerRoutes } from './server/brokerRoutes.js';
import { startBrokerServer, type RunningServer } from './server/brokerServer.js';
import type { SecretStore } from './secrets/secretStore.js';
import { kubecredVersion } from './version.js';
import { PromptQueue, promptingUi, startBrokerWebUi, webUiRoutes } from './webUiBroker.js';
import type { WebUi } from './webui/webUiPorts.js';

export interface HeadlessOptions {
  readonly keychain?: SecretStore;
  readonly interactions?: InteractionBoard;
  /** Replaces the whole UI port (the demo, the Electron shell). */
  readonly ui?: UiPort & LoginUiPort & ApprovalUiPort;
  /** Serve the web UI on loopback and ask PINs, passphrases and approvals there. */
  readonly webUi?: boolean;
  readonly opener?: UrlOpener;
}

export interface RunningBroker extends RunningServer {
  /** The first one-time link of the web UI, when it runs. */
  readonly webUiLink?: string;
  /** The broker's use cases, for a shell (the tray app) that serves them over its own channel. */
  readonly services: BrokerServices;
}

/** The broker and its socket server: `kubecred daemon` (optionally with the web UI), and the base of the tray app. */
export async function startHeadlessBroker(paths: KubecredPaths, logger: Logger, options: HeadlessOptions = {}): Promise<RunningBroker> {
  const interactions = options.interactions ?? new InteractionBoard();
  const opener = options.opener ?? new BrowserOpener();
  const prompts = options.webUi ? new PromptQueue() : undefined;
  const loginUi = new HeadlessUi(interactions, opener);
  const ui = options.ui ?? (prompts ? promptingUi(prompts, loginUi) : loginUi);
  const services = composeBroker({ paths, logger, interactions, ui, ...(options.keychain ? { keychain: options.keychain } : {}) });
  const configError = await services.credentials.configError();
  if (configError) logger.warn('config.yaml is not usable; serving no profiles until it is fixed', { reason: configError });
  const webUi: WebUi | undefined = prompts ? await startBrokerWebUi(services, interactions, prompts, opener, logger, paths) : undefined;
  const identity = { version: kubecredVersion(), home: paths.home, socket: paths.socket, configPath: paths.configFile };
  const server = await startBrokerServer(paths, () => [...brokerRoutes(services, identity), ...webUiRoutes(webUi)], logger).catch(async (error: unknown) => {
    await webUi?.close();
    throw error;
  });
  return {
    socket: server.socket,
    services,
    ...(webUi ? { webUiLink: webUi.url } : {}),
    close: async () => {
      prompts?.close();
      await webUi?.close();
      await server.close();
      await services.close();
    },
  };
}
