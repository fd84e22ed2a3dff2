// A stand-in for the `electron` module, for running the tray app's real main process under plain
// Node (the Electron binary cannot be downloaded here). It records what the app asks of Electron
// as JSON lines in $FAKE_ELECTRON_LOG and keeps Electron's rules that matter for a first launch:
// nothing before ready, before-quit can be prevented, exit ends the process. No window renders:
// the pages they load are the web UI that the Chromium tests drive.
import { appendFileSync, mkdtempSync } from 'node:fs';
import { EventEmitter } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';

const record = (event, fields = {}) =>
  appendFileSync(process.env.FAKE_ELECTRON_LOG, `${JSON.stringify({ event, ...fields })}\n`);
const appData = mkdtempSync(path.join(tmpdir(), 'kc-fake-appdata-'));
let ready = false;

class FakeApp extends EventEmitter {
  requestSingleInstanceLock() {
    record('app.requestSingleInstanceLock');
    return true;
  }
  async whenReady() {
    ready = true;
    record('app.ready');
  }
  isReady() {
    return ready;
  }
  getPath(name) {
    return name === 'appData' ? appData : path.join(appData, name);
  }
  setPath(name, value) {
    record('app.setPath', { name, value });
  }
  getLoginItemSettings() {
    return { openAtLogin: false, wasOpenedAtLogin: false };
  }
  setLoginItemSettings(settings) {
    record('app.setLoginItemSettings', { settings });
  }
  setAppUserModelId() {}
  quit() {
    record('app.quit');
    let prevented = false;
    this.emit('before-quit', { preventDefault: () => (prevented = true) });
    if (!prevented) this.exit(0);
  }
  exit(code = 0) {
    record('app.exit', { code });
    process.exit(code);
  }
}
export const app = new FakeApp();
// Electron quits on SIGTERM the way the tray's Quit does.
process.on('SIGTERM', () => app.quit());

const mustBeReady = (what) => {
  if (!ready) throw new Error(`${what} before the app is ready`);
};

export const session = {
  fromPartition(partition) {
    mustBeReady('session.fromPartition');
    record('session.fromPartition', { partition });
    return {
      webRequest: { onBeforeSendHeaders: (filter) => record('session.onBeforeSendHeaders', { urls: filter.urls }) },
      setPermissionRequestHandler: () => record('session.setPermissionRequestHandler'),
    };
  },
  // The OS's proxy settings as Chromium resolves them: FAKE_ELECTRON_SYSTEM_PROXY's PAC-style
  // answer ("PROXY host:port; DIRECT"), DIRECT when unset.
  defaultSession: {
    async resolveProxy(url) {
      mustBeReady('session.defaultSession.resolveProxy');
      record('session.resolveProxy', { url });
      return process.env.FAKE_ELECTRON_SYSTEM_PROXY ?? 'DIRECT';
    },
  },
};

export class Tray extends EventEmitter {
  constructor() {
    super();
    mustBeReady('new Tray');
    record('tray.new');
  }
  setImage() {}
  setToolTip(text) {
    record('tray.setToolTip', { text });
  }
  setContextMenu(menu) {
    record('tray.setContextMenu', { labels: menu.labels });
  }
  destroy() {
    record('tray.destroy');
  }
}

export const Menu = {
  buildFromTemplate: (template) => ({ labels: template.map((item) => item.label ?? item.type ?? '') }),
};

export const nativeImage = { createFromPath: (file) => ({ file, setTemplateImage: () => {} }) };

export class BrowserWindow extends EventEmitter {
  constructor(options) {
    super();
    mustBeReady('new BrowserWindow');
    this.destroyed = false;
    this.webContents = Object.assign(new EventEmitter(), { setWindowOpenHandler: () => {} });
    record('window.new', { partition: options.webPreferences?.partition, show: options.show });
  }
  async loadURL(url) {
    record('window.loadURL', { url });
    setImmediate(() => this.emit('ready-to-show'));
  }
  show() {
    record('window.show');
  }
  focus() {}
  isDestroyed() {
    return this.destroyed;
  }
  isVisible() {
    return true;
  }
  close() {
    this.destroyed = true;
    this.emit('closed');
  }
  destroy() {
    this.close();
  }
}

export class Notification extends EventEmitter {
  constructor(options) {
    super();
    record('notification', { title: options.title });
  }
  show() {}
}

export const dialog = { showErrorBox: (title, content) => record('dialog.showErrorBox', { title, content }) };
export const shell = { openExternal: async () => {} };

/** Someone is at the screen, unless a test says otherwise (KUBECRED_FAKE_IDLE=idle|locked). */
class FakePowerMonitor extends EventEmitter {
  getSystemIdleState() {
    return process.env.KUBECRED_FAKE_IDLE ?? 'active';
  }
}
export const powerMonitor = new FakePowerMonitor();

class FakeNativeTheme extends EventEmitter {
  shouldUseDarkColors = false;
}
export const nativeTheme = new FakeNativeTheme();

export default {
  app,
  session,
  Tray,
  Menu,
  nativeImage,
  BrowserWindow,
  Notification,
  dialog,
  shell,
  powerMonitor,
  nativeTheme,
};
