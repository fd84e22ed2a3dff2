import { BrowserLoginUi } from '../ui/browserLoginUi.js';
import { tellGuardWaits } from '../broker/guardWaitNotices.js';
import { writeToTerminalOf } from '../platform/terminalNotice.js';
import type { UrlOpener } from '../core/ports.js';
import { InteractionBoard } from '../ui/interactionBoard.js';
import type { Logger } from '../core/logger.js';
import type { BrokerUi } from '../core/uiPorts.js';
import type { BrokerServices } from '../broker/brokerServices.js';
import { composeBroker } from './composition.js';
import type { SystemProxyResolver } from '../platform/systemProxyRoutes.js';
import { osTrustStoreAccess, readTrustedRoots } from '../platform/systemTrust.js';
import { privateBrowserOpener } from '../platform/privateLinkOpener.js';
import type { KubecredPaths } from '../platform/paths.js';
import { PeerCredentialReader } from '../platform/peerCredentials.js';
import { PipeCallerVerifier } from '../platform/pipeCaller.js';
import { brokerRoutes } from '../server/brokerRoutes.js';
import { stopRoute } from '../server/stopRoute.js';
import { startBrokerServer, type RunningServer } from '../server/brokerServer.js';
import type { SecretStore } from '../core/secretStore.js';
import { kubecredVersion } from '../platform/version.js';
import { PromptQueue } from '../ui/promptQueue.js';
import { promptTimeoutMs } from '../ui/promptTimeout.js';
import { promptingUi } from '../ui/promptingUi.js';
import type { LoginItem } from '../platform/loginItem.js';
import { startBrokerWebUi, WebUiHost } from './webUiHost.js';
import { webUiRoutes } from './webUiLinkRoute.js';
import type { WebUi } from '../webui/webUiPorts.js';

export interface BrokerHostOptions {
  readonly keychain?: SecretStore;
  readonly interactions?: InteractionBoard;
  /** Replaces the whole UI port (the demo, the Electron shell). */
  readonly ui?: BrokerUi;
  /** Serve the web UI on loopback and ask PINs, passphrases and approvals there. */
  readonly webUi?: boolean;
  readonly opener?: UrlOpener;
  /**
   * The tray app: its own windows show every question (never the system browser), on the web
   * UI that starts with the broker; `loginItem` is the OS's start-at-login switch where the
   * shell owns it (Electron on macOS and Windows).
   */
  readonly trayWindows?: { readonly loginItem?: LoginItem };
  /** Whether nobody is at the screen (locked, idle), where the shell can tell (the tray app). */
  readonly away?: () => boolean;
  /** The OS's proxy settings and PAC file, where the shell can resolve them (the tray app's Electron). */
  readonly systemProxy?: SystemProxyResolver;
}

export interface RunningBroker extends RunningServer {
  /** The first one-time link of the web UI, when it runs. */
  readonly webUiLink?: string;
  /** The web UI, when it started with the broker (`webUi`, `trayWindows`). */
  readonly webUi?: WebUi;
  /** The questions waiting on the user; the tray opens a window for each. */
  readonly prompts: PromptQueue;
  /** The broker's use cases, for a shell (the tray app) that serves them over its own channel. */
  readonly services: BrokerServices;
  /** Resolves when a client asked the broker to stop (`kubecred stop`); the host then closes it. */
  readonly stopRequested: Promise<void>;
}

/**
 * The broker and its socket server: `kubecred daemon`, and the base of the tray app. Every
 * broker can serve the web UI: at start with `webUi`, else once `kubecred ui` asks.
 */
export async function startBroker(
  paths: KubecredPaths,
  logger: Logger,
  options: BrokerHostOptions = {},
): Promise<RunningBroker> {
  const interactions = options.interactions ?? new InteractionBoard();
  const opener = options.opener ?? privateBrowserOpener(paths);
  // Read once, at start: a bad value stops the broker with a message that names it.
  const prompts = new PromptQueue({ timeoutMs: promptTimeoutMs(process.env) });
  const loginUi = new BrowserLoginUi(interactions, opener);
  // A shell with windows of its own (the tray, the demo) brings its UI; the rest get the web UI.
  let host: WebUiHost | undefined;
  const tray = options.trayWindows;
  // The tray's windows are always there to ask in; a daemon's page may not be open yet.
  const windows = tray
    ? undefined
    : {
        showing: () => (host?.current?.openPages() ?? 0) > 0,
        inUse: () => host?.running === true,
        open: async () => host?.ensure(),
      };
  const ui = options.ui ?? promptingUi(prompts, loginUi, windows);
  const stopGuardWaitNotices = tellGuardWaits(prompts, writeToTerminalOf);
  const services = composeBroker({
    paths,
    logger,
    // Once per broker, before any provider runs: on macOS and Windows a program lists the OS's
    // roots (bounded by a deadline); elsewhere a file read, as before.
    roots: await readTrustedRoots(osTrustStoreAccess(logger)),
    interactions,
    ui,
    ...(options.keychain ? { keychain: options.keychain } : {}),
    ...(options.away ? { away: options.away } : {}),
    ...(options.systemProxy ? { systemProxy: options.systemProxy } : {}),
  });
  const webUiOptions = { askInBrowser: !tray, ...(tray?.loginItem ? { loginItem: tray.loginItem } : {}) };
  if (!options.ui || options.webUi)
    host = new WebUiHost(() => startBrokerWebUi(services, interactions, prompts, opener, logger, paths, webUiOptions));
  const configError = await services.credentials.configError();
  if (configError)
    logger.warn('config.yaml is not usable; serving no profiles until it is fixed', { reason: configError });
  const webUi: WebUi | undefined = options.webUi || tray ? await host?.ensure() : undefined;
  let requestStop: () => void = () => {};
  const stopRequested = new Promise<void>((resolve) => (requestStop = resolve));
  const identity = { version: kubecredVersion(), home: paths.home, socket: paths.socket, configPath: paths.configFile };
  const peers = new PeerCredentialReader();
  const server = await startBrokerServer(
    paths,
    () => [
      ...brokerRoutes(services, identity, { peers, pipes: new PipeCallerVerifier() }, options.ui ? undefined : prompts),
      ...webUiRoutes(host, peers),
      stopRoute(() => requestStop()),
    ],
    logger,
    (socket) => peers.pin(socket),
  ).catch(async (error: unknown) => {
    await host?.close();
    throw error;
  });
  return {
    socket: server.socket,
    services,
    prompts,
    ...(webUi ? { webUi } : {}),
    stopRequested,
    ...(webUi ? { webUiLink: webUi.url } : {}),
    close: async () => {
      services.credentials.stop();
      stopGuardWaitNotices();
      prompts.close();
      await host?.close();
      await server.close();
      await services.close();
    },
  };
}
