import { BrowserWindow, shell } from 'electron';
import type { PromptView } from '../../shared/api/ipcChannels.js';
import { IpcChannel, type IpcEvents } from '../../shared/api/ipcChannels.js';
import { isAllowedNavigation, windowOpenDecision } from './appOrigin.js';
import { windowOptions, type WindowKind } from './windowOptions.js';

/** Opens and tracks the app's windows; every window gets the same guards. Thin: the rules live in pure modules. */
export class WindowManager {
  private main: BrowserWindow | undefined;
  private readonly prompts = new Map<string, BrowserWindow>();

  constructor(
    private readonly appOrigin: string,
    private readonly preloadPath: string,
  ) {}

  openMain(): void {
    if (this.main && !this.main.isDestroyed()) {
      this.main.show();
      this.main.focus();
      return;
    }
    this.main = this.create('main', '/');
    this.main.on('closed', () => (this.main = undefined));
  }

  showPrompt(prompt: PromptView): void {
    // The renderer's prompt route (a fragment: every path but / would need its own asset paths).
    const window = this.create('prompt', `/#prompt=${encodeURIComponent(prompt.id)}`);
    this.prompts.set(prompt.id, window);
    window.on('closed', () => this.prompts.delete(prompt.id));
  }

  closePrompt(promptId: string): void {
    const window = this.prompts.get(promptId);
    this.prompts.delete(promptId);
    if (window && !window.isDestroyed()) window.close();
  }

  broadcast<E extends keyof IpcEvents>(channel: E, payload: IpcEvents[E]): void {
    for (const window of BrowserWindow.getAllWindows()) window.webContents.send(channel, payload);
  }

  statusChanged(profiles: IpcEvents[IpcChannel.StatusChanged]): void {
    this.broadcast(IpcChannel.StatusChanged, profiles);
  }

  private create(kind: WindowKind, route: string): BrowserWindow {
    const window = new BrowserWindow(windowOptions(kind, this.preloadPath));
    const contents = window.webContents;
    contents.on('will-navigate', (event, url) => {
      if (!isAllowedNavigation(url, this.appOrigin)) event.preventDefault();
    });
    contents.on('will-redirect', (event, url) => {
      if (!isAllowedNavigation(url, this.appOrigin)) event.preventDefault();
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(({ url }) => {
      const decision = windowOpenDecision(url);
      if ('openExternally' in decision) void shell.openExternal(decision.openExternally);
      return { action: 'deny' };
    });
    contents.session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
    window.once('ready-to-show', () => window.show());
    void window.loadURL(new URL(route, this.appOrigin).href);
    return window;
  }
}
