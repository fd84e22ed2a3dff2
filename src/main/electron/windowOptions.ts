import type { BrowserWindowConstructorOptions } from 'electron';

export type WindowKind = 'main' | 'prompt';

const SIZES: Readonly<Record<WindowKind, { width: number; height: number; minWidth: number; minHeight: number; resizable: boolean }>> = {
  main: { width: 960, height: 680, minWidth: 720, minHeight: 480, resizable: true },
  prompt: { width: 440, height: 340, minWidth: 440, minHeight: 340, resizable: false },
};

/**
 * A window's options: always isolated, sandboxed, without Node, with web security, no
 * webview tags and no preload: the page is the same one a browser tab loads from the loopback
 * web UI, and needs nothing of Electron. `partition` is an in-memory session (no "persist:"),
 * so nothing a window sees is written to disk. Prompts sit on top and skip the taskbar; they
 * are what kubectl waits on.
 */
export function windowOptions(kind: WindowKind, partition: string): BrowserWindowConstructorOptions {
  const { resizable, ...size } = SIZES[kind];
  return {
    ...size,
    resizable,
    show: false,
    title: kind === 'main' ? 'Kubecred' : 'Kubecred: action needed',
    autoHideMenuBar: true,
    ...(kind === 'prompt' ? { alwaysOnTop: true, skipTaskbar: true, minimizable: false, maximizable: false, fullscreenable: false } : {}),
    webPreferences: {
      partition,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      safeDialogs: true,
    },
  };
}
