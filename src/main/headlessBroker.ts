import { HeadlessUi, type UrlOpener } from './broker/headlessUi.js';
import { InteractionBoard } from './broker/interactionBoard.js';
import type { Logger } from './broker/logger.js';
import type { ApprovalUiPort, LoginUiPort, UiPort } from './broker/uiPort.js';
import { composeBroker, type BrokerServices } from './composition.js';
import { privateBrowserOpener } from './platform/privateLinkOpener.js';
import type { KubecredPaths } from './platform/paths.js';
import { PeerCredentialReader } from './platform/peerCredentials.js';
import { brokerRoutes } from './server/brokerRoutes.js';
import { stopRoute } from './server/stopRoute.js';
import { startBrokerServer, type RunningServer } from './server/brokerServer.js';
import type { SecretStore } from './secrets/secretStore.js';
import { kubecredVersion } from './version.js';
import { PromptQueue, promptingUi, startBrokerWebUi, WebUiHost, webUiRoutes } from './webUiBroker.js';
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
  /** Resolves when a client asked the broker to stop (`kubecred stop`); the host then closes it. */
  readonly stopRequested: Promise<void>;
}

/**
 * The broker and its socket server: `kubecred daemon`, and the base of the tray app. Every
 * headless broker can serve the web UI: at start with `webUi`, else once `kubecred ui` asks.
 */
export async function startHeadlessBroker(paths: KubecredPaths, logger: Logger, options: HeadlessOptions = {}): Promise<RunningBroker> {
  const interactions = options.interactions ?? new InteractionBoard();
  const opener = options.opener ?? privateBrowserOpener(paths);
  const prompts = new PromptQueue();
  const loginUi = new HeadlessUi(interactions, opener);
  // A shell with windows of its own (the tray, the demo) brings its UI; the rest get the web UI.
  let host: WebUiHost | undefined;
  const ui = options.ui ?? promptingUi(prompts, loginUi, { showing: () => host?.running === true, open: async () => host?.ensure() });
  const services = composeBroker({ paths, logger, interactions, ui, ...(options.keychain ? { keychain: options.keychain } : {}) });
  if (!options.ui || options.webUi) host = new WebUiHost(() => startBrokerWebUi(services, interactions, prompts, opener, logger, paths));
  const configError = await services.credentials.configError();
  if (configError) logger.warn('config.yaml is not usable; serving no profiles until it is fixed', { reason: configError });
  const webUi: WebUi | undefined = options.webUi ? await host?.ensure() : undefined;
  let requestStop: () => void = () => {};
  const stopRequested = new Promise<void>((resolve) => (requestStop = resolve));
  const identity = { version: kubecredVersion(), home: paths.home, socket: paths.socket, configPath: paths.configFile };
  const server = await startBrokerServer(paths, () => [...brokerRoutes(services, identity, new PeerCredentialReader(), options.ui ? undefined : prompts), ...webUiRoutes(host), stopRoute(() => requestStop())], logger).catch(async (error: unknown) => {
    await host?.close();
    throw error;
  });
  return {
    socket: server.socket,
    services,
    stopRequested,
    ...(webUi ? { webUiLink: webUi.url } : {}),
    close: async () => {
      prompts.close();
      await host?.close();
      await server.close();
      await services.close();
    },
  };
}
