import type { Logger } from '../core/logger.js';
import { stopBroker } from '../client/stopBroker.js';
import { AlreadyRunningError } from '../server/instanceLock.js';
import { startBroker, type RunningBroker } from './startBroker.js';
import type { KubecredPaths } from '../platform/paths.js';
import type { LoginItem } from '../platform/loginItem.js';
import type { WebUi } from '../webui/webUiPorts.js';
import type { SystemProxyResolver } from '../platform/systemProxyRoutes.js';

export interface TrayBroker extends RunningBroker {
  /** Where the tray's windows load the page, and the header that admits them. */
  readonly webUi: WebUi;
}

/** What the tray's shell (Electron) lends the broker. */
export interface TrayShell {
  /** The OS's start-at-login switch, where the shell owns it (macOS, Windows). */
  readonly loginItem?: LoginItem;
  /** Whether nobody is at the screen (locked, idle). */
  readonly away?: () => boolean;
  /** The OS's proxy settings and PAC file, as the shell's browser engine resolves them. */
  readonly systemProxy?: SystemProxyResolver;
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
  { loginItem, away, systemProxy }: TrayShell = {},
): Promise<TrayBroker> {
  const start = () =>
    startBroker(paths, logger, {
      trayWindows: loginItem ? { loginItem } : {},
      ...(away ? { away } : {}),
      ...(systemProxy ? { systemProxy } : {}),
    });
  const broker = await start().catch(async (error: unknown) => {
    if (!(error instanceof AlreadyRunningError)) throw error;
    await takeOver(paths, logger, error.pid);
    return start();
  });
  const { webUi } = broker;
  if (!webUi) {
    await broker.close();
    throw new Error("the tray's broker started without its web UI");
  }
  return { ...broker, webUi };
}

/**
 * A headless broker already serves this home (kubectl's shim or `kubecred daemon` started it):
 * the tray takes over rather than adopting it. Only the broker in the tray's own process can
 * put a PIN, an approval or a login form in a tray window, and only it stops when the user
 * quits; a daemon stays a client's broker. What the daemon held in memory (cached tokens,
 * PINs) is lost, and a login it waited on ends with "the broker stopped, run it again".
 */
async function takeOver(paths: KubecredPaths, logger: Logger, pid: number): Promise<void> {
  logger.info('a headless broker serves this home; the tray app stops it and takes over', { pid });
  const stopped = await stopBroker(paths);
  if (stopped.stopped && stopped.exited) return;
  // A broker that is gone leaves its lock to a dead pid, which the next start reclaims; one that
  // took the request and said nothing (hung, or stopped) still holds it.
  if (!stopped.stopped && !stopped.failure && stopped.silentMs === undefined) return;
  throw new Error(
    `a Kubecred broker (pid ${pid}) serves ${paths.home} and did not stop; stop it (kubecred stop, or kill ${pid}) and start Kubecred again`,
  );
}
