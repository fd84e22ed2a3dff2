import { BrowserWindow, shell } from 'electron';
import { MAIN_PAGE_ROUTE, promptPageRoute } from '../../shared/api/pageRoutes.js';
import type { PendingPrompt } from '../../shared/api/prompts.js';
import { isAllowedNavigation, windowOpenDecision } from './appOrigin.js';
import type { PromptWindows } from './promptWindows.js';
import { promptWindowHeight, windowOptions, type WindowKind } from './windowOptions.js';

/**
 * Opens and tracks the app's windows, each on the broker's loopback web UI (`origin`) in one
 * in-memory session partition whose requests the main process signs; every window gets the
 * same guards. Thin: the rules live in pure modules.
 */
export class WindowManager implements PromptWindows {
  private main: BrowserWindow | undefined;
  private readonly prompts = new Map<string, BrowserWindow>();

  constructor(
    private readonly origin: string,
    private readonly partition: string,
  ) {}

  openMain(): void {
    if (this.main && !this.main.isDestroyed()) {
      this.main.show();
      this.main.focus();
      return;
    }
    this.main = this.create('main', MAIN_PAGE_ROUTE);
    this.main.on('closed', () => (this.main = undefined));
  }

  show(prompt: PendingPrompt): void {
    const window = this.create('prompt', promptPageRoute(prompt.id), promptWindowHeight(prompt));
    this.prompts.set(prompt.id, window);
    window.on('closed', () => this.prompts.delete(prompt.id));
  }

  /**
   * Brings the waiting questions' windows to the front, and opens again the window of one whose
   * window was closed while it still waits.
   */
  showPrompts(open: readonly PendingPrompt[]): void {
    for (const prompt of open) {
      const window = this.prompts.get(prompt.id);
      if (!window || window.isDestroyed()) {
        this.show(prompt);
        continue;
      }
      window.show();
      window.moveTop();
      window.focus();
    }
  }

  closed(promptId: string): void {
    const window = this.prompts.get(promptId);
    this.prompts.delete(promptId);
    if (window && !window.isDestroyed()) window.close();
  }

  private create(kind: WindowKind, route: string, height?: number): BrowserWindow {
    const window = new BrowserWindow(windowOptions(kind, this.partition, height));
    const contents = window.webContents;
    const guard = (event: { preventDefault(): void }, url: string) => {
      if (!isAllowedNavigation(url, this.origin)) event.preventDefault();
    };
    contents.on('will-navigate', guard);
    contents.on('will-redirect', guard);
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(({ url }) => {
      const decision = windowOpenDecision(url);
      if ('openExternally' in decision) void shell.openExternal(decision.openExternally);
      return { action: 'deny' };
    });
    window.once('ready-to-show', () => window.show());
    // A prompt answered elsewhere closes its window before the page loads (ERR_ABORTED): not a failure.
    window.loadURL(new URL(route, this.origin).href).catch(() => {
      if (!window.isDestroyed() && !window.isVisible()) window.destroy();
    });
    return window;
  }
}
