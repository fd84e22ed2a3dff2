import { app } from 'electron';
import { jsonLinesLogger } from '../broker/logger.js';
import { startHeadlessBroker } from '../headlessBroker.js';
import { kubecredPaths } from '../platform/paths.js';

// The tray app: the broker runs in the main process. Windows and the tray menu arrive with
// the UI work; the menu model (trayMenuModel.ts) is already pure and tested.
async function start(): Promise<void> {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  await app.whenReady();
  const logger = jsonLinesLogger((line) => process.stderr.write(line));
  const server = await startHeadlessBroker(kubecredPaths(), logger);
  app.on('before-quit', () => void server.close());
  app.on('window-all-closed', () => {
    // A tray app stays running with no window open.
  });
}

void start();
