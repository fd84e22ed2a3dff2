import type { Logger } from './core/logger.js';
import { startBroker, type RunningBroker } from './startBroker.js';
import type { KubecredPaths } from './platform/paths.js';
import type { LoginItem } from './webUiHost.js';
import type { WebUi } from './webui/webUiPorts.js';

export interface TrayBroker extends RunningBroker {
  /** Where the tray's windows load the page, and the header that admits them. */
  readonly webUi: WebUi;
}

/**
 * The broker as the tray app runs it, with nothing of Electron: in this process, with its web
 * UI up from the start for the tray's windows, and every question (PIN, passphrase, approval,
 * login form) going to the prompt queue the tray opens a window for. A test starts exactly
 * this and looks at it through Chromium, as the tray's windows would.
 */
export async function startTrayBroker(
  paths: KubecredPaths,
  logger: Logger,
  loginItem?: LoginItem,
): Promise<TrayBroker> {
  const broker = await startBroker(paths, logger, { trayWindows: loginItem ? { loginItem } : {} });
  const { webUi } = broker;
  if (!webUi) {
    await broker.close();
    throw new Error("the tray's broker started without its web UI");
  }
  return { ...broker, webUi };
}
