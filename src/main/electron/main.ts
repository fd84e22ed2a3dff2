import path from 'node:path';
import { Notification, app, dialog, nativeTheme, powerMonitor, session } from 'electron';
import { forbidCoreDumps } from '../platform/peerCredentials.js';
import { jsonLinesLogger } from '../core/logger.js';
import { kubecredPaths } from '../platform/paths.js';
import { currentLayout } from '../platform/shimLocation.js';
import { startTrayBroker } from '../hosts/trayBroker.js';
import { xdgLoginItem, type LoginItem } from '../platform/loginItem.js';
import { trayActions } from './trayActions.js';
import { recentDenials } from './deniedRequests.js';
import { notificationsSince, type BrokerSnapshot } from './notifications.js';
import { mirrorPromptWindows } from './promptWindows.js';
import { KubecredTray } from './tray.js';
import type { TrayAction } from './trayMenuModel.js';
import { WAKE_EVENTS, followEvents, themeEvents } from './trayTriggers.js';
import { WindowManager } from './windows.js';

/** Idle this long, the person is taken to be away from the screen. */
const AWAY_AFTER_SECONDS = 5 * 60;

// The tray app: single instance, the broker in this process, a tray, windows on demand.
// The windows load the broker's loopback web UI, the same page a browser tab gets; the main
// process signs their requests (WindowAuthorization), so no token is in a URL or a cookie.
// Everything with rules in it lives in pure modules beside this file.
const RESOURCES = currentLayout().resourcesDir;
const POLL_MS = 15_000;
// In memory (no "persist:" prefix): nothing a window holds is written to disk.
const WINDOW_PARTITION = 'kubecred-windows';
const HIDDEN = '--hidden';

/** macOS and Windows keep login items; on Linux an XDG autostart entry starts this app (in the tray). */
function electronLoginItem(): LoginItem {
  if (process.platform === 'linux') return xdgLoginItem({ argv: [process.execPath, HIDDEN] });
  return {
    enabled: async () => app.getLoginItemSettings().openAtLogin,
    // Started at login, the app comes up in the tray alone (--hidden), not with its window.
    set: async (enabled) => app.setLoginItemSettings({ openAtLogin: enabled, args: [HIDDEN] }),
    where:
      process.platform === 'darwin'
        ? 'your Login Items (System Settings, General)'
        : 'your startup apps (Settings, Apps, Startup)',
  };
}

// Chromium's profile (Local State, caches) beside Kubecred's home would mix with config.yaml and run/.
app.setPath('userData', path.join(app.getPath('appData'), 'Kubecred-app'));

async function start(): Promise<void> {
  if (!app.requestSingleInstanceLock()) return app.quit();
  // A second launch while this one starts still opens the window, once there is one to open.
  let openMain: () => void = () => (openRequested = true);
  let openRequested = false;
  app.on('second-instance', () => openMain());
  await app.whenReady();
  // This process holds PINs and tokens: no core dump, no ptrace by another process of the user.
  forbidCoreDumps();

  const logger = jsonLinesLogger((line) => process.stderr.write(line));
  const paths = kubecredPaths();
  const loginItem = electronLoginItem();
  // Locked, or nobody touched the machine for 5 minutes: a sign-in page opened now would wait unseen.
  const away = () => ['locked', 'idle'].includes(powerMonitor.getSystemIdleState(AWAY_AFTER_SECONDS));
  // The OS's proxy settings, PAC included, as Chromium resolves them: where the environment sets
  // no proxy variable (a tray started by the desktop rarely has one), the broker asks this.
  const systemProxy = (url: string) => session.defaultSession.resolveProxy(url);
  const server = await startTrayBroker(paths, logger, { ...(loginItem ? { loginItem } : {}), away, systemProxy });
  const { webUi } = server;
  const windowSession = session.fromPartition(WINDOW_PARTITION);
  windowSession.webRequest.onBeforeSendHeaders({ urls: [`${webUi.origin}/*`] }, (details, callback) => {
    callback({ requestHeaders: { ...details.requestHeaders, ...webUi.windowRequestHeaders(details.url) } });
  });
  // Only the Copy buttons (a device code, a login link) on the app's own pages; nothing else.
  windowSession.setPermissionRequestHandler((contents, permission, callback) =>
    callback(permission === 'clipboard-sanitized-write' && contents.getURL().startsWith(`${webUi.origin}/`)),
  );
  const windows = new WindowManager(webUi.origin, WINDOW_PARTITION);
  const unmirror = mirrorPromptWindows(server.prompts, windows);
  const broker = trayActions(server.services);

  // Notifications are kept until they close: a collected one loses its click handler.
  const shownNotes = new Set<Notification>();
  if (process.platform === 'win32') app.setAppUserModelId('dev.kubecred.app');
  const report = (error: unknown) => logger.warn('tray action failed', { reason: (error as Error).message });
  const run = (action: TrayAction): void => {
    switch (action.kind) {
      case 'open':
        return windows.openMain();
      case 'showQuestions':
        return windows.showPrompts(server.prompts.list());
      case 'quit':
        return app.quit();
      case 'lockAll':
        return void broker.lockAll().then(refresh, report);
      case 'toggleStartAtLogin':
        if (loginItem)
          void loginItem
            .enabled()
            .then((enabled) => loginItem.set(!enabled))
            .then(refresh, report);
        return;
      default:
        void broker[action.kind](action.profile).then(refresh, report);
    }
  };
  const tray = new KubecredTray(RESOURCES, run);
  let last: BrokerSnapshot | undefined;
  async function refresh(): Promise<void> {
    const profiles = await broker.listProfiles();
    const next: BrokerSnapshot = {
      at: Date.now(),
      profiles,
      silentRefresh: new Set(profiles.filter((p) => p.silentRefresh !== false).map((p) => p.name)),
      denied: await recentDenials(paths.auditLog),
    };
    for (const note of notificationsSince(last, next)) {
      const shown = new Notification({ title: note.title, body: note.body });
      shown.on('click', () =>
        note.action === 'login' ? run({ kind: 'login', profile: note.profile }) : windows.openMain(),
      );
      shownNotes.add(shown);
      shown.on('close', () => shownNotes.delete(shown));
      shown.show();
    }
    last = next;
    // The windows follow the web UI's event stream; the tray menu follows this.
    tray.update(next.profiles, next.at, {
      questionsWaiting: server.prompts.list().length,
      ...(loginItem ? { startAtLogin: await loginItem.enabled() } : {}),
    });
  }
  const timer = setInterval(() => void refresh().catch(report), POLL_MS);
  server.services.interactions.onChange(() => void refresh().catch(report));
  // The tray follows a served, dropped or failed profile at once, not at the next poll.
  server.services.onProfilesChanged(() => void refresh().catch(report));
  // A PIN or approval question shows in the tray as it opens, and goes when it is answered.
  const unfollowPrompts = server.prompts.onChange(() => void refresh().catch(report));
  const unfollowWake = followEvents(powerMonitor, WAKE_EVENTS, () => void refresh().catch(report));
  const unfollowTheme = followEvents(nativeTheme, themeEvents(process.platform), () => tray.restyle());
  void refresh().catch(report);

  // `kubecred stop` quits the tray app as it stops a daemon.
  void server.stopRequested.then(() => app.quit());
  openMain = () => windows.openMain();
  app.on('activate', () => openMain());
  // A launch by the user shows the window; a start at login stays in the tray.
  const atLogin = process.argv.includes(HIDDEN) || app.getLoginItemSettings().wasOpenedAtLogin;
  if (openRequested || !atLogin) openMain();
  // Electron does not wait for a promise in before-quit: hold the quit until the broker has
  // closed (lock, client secret, token sessions), then leave.
  let closing: Promise<void> | undefined;
  app.on('before-quit', (event) => {
    if (closing) return;
    event.preventDefault();
    clearInterval(timer);
    unmirror();
    unfollowPrompts();
    unfollowWake();
    unfollowTheme();
    tray.destroy();
    closing = server
      .close()
      .catch((error: unknown) => logger.warn('the broker did not close cleanly', { reason: (error as Error).message }))
      .finally(() => app.exit(0));
  });
  app.on('window-all-closed', () => {
    // A tray app stays running with no window open.
  });
}

// Whatever stops the start is said in a dialog, and the app leaves: never a process with no
// tray and no window that holds the single-instance lock.
start().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`kubecred: the tray app could not start: ${message}\n`);
  if (app.isReady()) dialog.showErrorBox('Kubecred could not start', message);
  app.exit(1);
});
