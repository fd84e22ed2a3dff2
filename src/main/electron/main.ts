import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Notification, app, ipcMain, protocol } from 'electron';
import { HeadlessUi } from '../broker/headlessUi.js';
import { promptingUi } from '../webUiBroker.js';
import { InteractionBoard } from '../broker/interactionBoard.js';
import { jsonLinesLogger } from '../broker/logger.js';
import { PromptQueue } from '../broker/promptQueue.js';
import { startHeadlessBroker } from '../headlessBroker.js';
import { privateBrowserOpener } from '../platform/privateLinkOpener.js';
import { kubecredPaths } from '../platform/paths.js';
import { currentLayout, nativeShimPath, nodeCliPath } from '../platform/shimLocation.js';
import { brokerImportService } from '../kubeconfig/brokerImportService.js';
import { recentDenials } from './deniedRequests.js';
import { APP_ORIGIN, APP_SCHEME } from './appOrigin.js';
import { appResponseHeaders, resolveAppAsset } from './appProtocol.js';
import { servicesBrokerPort } from './brokerPort.js';
import { ipcHandlers, mirrorPromptWindows, registerIpcHandlers } from './ipcHandlers.js';
import { notificationsFor, type BrokerSnapshot } from './notifications.js';
import { KubecredTray } from './tray.js';
import type { TrayAction } from './trayMenuModel.js';
import { WindowManager } from './windows.js';

// The tray app: single instance, the broker in this process, a tray, windows on demand.
// Everything with rules in it lives in pure modules beside this file.
const here = path.dirname(fileURLToPath(import.meta.url));
const DIST = path.resolve(here, '..', '..');
const RENDERER_DIR = currentLayout().rendererDir;
const PRELOAD = path.join(DIST, 'preload', 'preload.cjs');
const RESOURCES = currentLayout().resourcesDir;
const POLL_MS = 15_000;

protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);

async function start(): Promise<void> {
  if (!app.requestSingleInstanceLock()) return app.quit();
  await app.whenReady();
  protocol.handle(APP_SCHEME, async (request) => {
    const file = resolveAppAsset(request.url, RENDERER_DIR);
    if (!file) return new Response('not found', { status: 404 });
    return new Response(await readFile(file), { headers: appResponseHeaders(file) });
  });

  const logger = jsonLinesLogger((line) => process.stderr.write(line));
  const windows = new WindowManager(APP_ORIGIN, PRELOAD);
  const prompts = new PromptQueue();
  mirrorPromptWindows(prompts, { show: (p) => windows.showPrompt(p), closed: (id) => windows.closePrompt(id) });
  const interactions = new InteractionBoard();
  const paths = kubecredPaths();
  const login = new HeadlessUi(interactions, privateBrowserOpener(paths));
  const server = await startHeadlessBroker(paths, logger, {
    interactions,
    ui: promptingUi(prompts, login),
  });
  const broker = servicesBrokerPort(server.services);
  const importer = brokerImportService(server.services, paths, nativeShimPath() ?? nodeCliPath(), logger);
  registerIpcHandlers(ipcMain, ipcHandlers(broker, prompts, importer), APP_ORIGIN);

  const report = (error: unknown) => logger.warn('tray action failed', { reason: (error as Error).message });
  const run = (action: TrayAction): void => {
    switch (action.kind) {
      case 'open':
        return windows.openMain();
      case 'quit':
        return app.quit();
      case 'lockAll':
        return void broker.lockAll().then(refresh, report);
      case 'toggleStartAtLogin':
        app.setLoginItemSettings({ openAtLogin: !app.getLoginItemSettings().openAtLogin });
        return void refresh().catch(report);
      default:
        void broker[action.kind](action.profile).then(refresh, report);
    }
  };
  const tray = new KubecredTray(RESOURCES, run);
  let last: BrokerSnapshot = { at: Date.now(), profiles: [], silentRefresh: new Set(), denied: [] };
  async function refresh(): Promise<void> {
    const profiles = await broker.listProfiles();
    const next: BrokerSnapshot = { at: Date.now(), profiles, silentRefresh: new Set(profiles.filter((p) => p.silentRefresh !== false).map((p) => p.name)), denied: await recentDenials(paths.auditLog) };
    for (const note of notificationsFor(last, next)) {
      const shown = new Notification({ title: note.title, body: note.body });
      shown.on('click', () => (note.action === 'login' ? run({ kind: 'login', profile: note.profile }) : windows.openMain()));
      shown.show();
    }
    last = next;
    // macOS and Windows keep login items; on Linux the web UI's preferences write an XDG autostart entry.
    tray.update(next.profiles, next.at, process.platform === 'linux' ? {} : { startAtLogin: app.getLoginItemSettings().openAtLogin });
    windows.statusChanged([...next.profiles]);
  }
  const timer = setInterval(() => void refresh().catch(report), POLL_MS);
  interactions.onChange(() => void refresh().catch(report));
  // The tray and the windows follow a served, dropped or failed profile at once, not at the next poll.
  server.services.onProfilesChanged(() => void refresh().catch(report));
  void refresh().catch(report);

  // `kubecred stop` quits the tray app as it stops a daemon.
  void server.stopRequested.then(() => app.quit());
  app.on('second-instance', () => windows.openMain());
  app.on('before-quit', () => {
    clearInterval(timer);
    tray.destroy();
    prompts.close();
    void server.close();
  });
  app.on('window-all-closed', () => {
    // A tray app stays running with no window open.
  });
}

void start();
