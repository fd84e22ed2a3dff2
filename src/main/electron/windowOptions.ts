import type { BrowserWindowConstructorOptions } from 'electron';
import type { PendingPrompt } from '../../shared/api/prompts.js';

export type WindowKind = 'main' | 'prompt';

const SIZES: Readonly<
  Record<WindowKind, { width: number; height: number; minWidth: number; minHeight: number; resizable: boolean }>
> = {
  main: { width: 960, height: 680, minWidth: 720, minHeight: 480, resizable: true },
  prompt: { width: 440, height: 340, minWidth: 440, minHeight: 340, resizable: false },
};

// A form prompt (Keystone's login) grows by a field's height per field past the first, up to
// what fits on a small laptop screen, so its Log in button shows without scrolling.
const FORM_FIELD_HEIGHT = 72;
const MAX_PROMPT_HEIGHT = 640;

/** The prompt window's height for this question. */
export function promptWindowHeight(prompt: Pick<PendingPrompt, 'kind'> & { fields?: readonly unknown[] }): number {
  const base = SIZES.prompt.height;
  if (prompt.kind !== 'form' || !prompt.fields || prompt.fields.length <= 1) return base;
  return Math.min(MAX_PROMPT_HEIGHT, base + FORM_FIELD_HEIGHT * (prompt.fields.length - 1));
}

/**
 * A window's options: always isolated, sandboxed, without Node, with web security, no
 * webview tags and no preload: the page is the same one a browser tab loads from the loopback
 * web UI, and needs nothing of Electron. `partition` is an in-memory session (no "persist:"),
 * so nothing a window sees is written to disk. Prompts sit on top and skip the taskbar; they
 * are what kubectl waits on.
 */
export function windowOptions(kind: WindowKind, partition: string, height?: number): BrowserWindowConstructorOptions {
  const { resizable, ...size } = SIZES[kind];
  return {
    ...size,
    ...(height ? { height, minHeight: height } : {}),
    resizable,
    show: false,
    title: kind === 'main' ? 'Kubecred' : 'Kubecred: action needed',
    autoHideMenuBar: true,
    ...(kind === 'prompt'
      ? { alwaysOnTop: true, skipTaskbar: true, minimizable: false, maximizable: false, fullscreenable: false }
      : {}),
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
