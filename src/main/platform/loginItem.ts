import {
  autostartEnabled,
  autostartFile,
  layoutDaemonAutostart,
  setAutostart,
  type AutostartCommand,
} from './autostart.js';
import { currentPlatformEnv } from './paths.js';
import { currentLayout } from './shimLocation.js';

/** The OS's start-at-login switch, where the shell owns it (Electron's login items on macOS and Windows). */
export interface LoginItem {
  enabled(): Promise<boolean>;
  set(enabled: boolean): Promise<void>;
  /** Where the setting is written, in the user's words: shown when it is turned on. */
  readonly where?: string;
}

/**
 * Start at login through the XDG autostart entry Kubecred writes (Linux; elsewhere it says what
 * to use): the headless broker in this home by default (without its page: a browser tab at
 * every login is not wanted, and `kubecred ui` opens one), or what the host says (the tray app).
 */
export function xdgLoginItem(
  command: AutostartCommand = layoutDaemonAutostart(currentLayout(), process.execPath, process.env),
): LoginItem {
  return {
    enabled: () => autostartEnabled(currentPlatformEnv()),
    set: (enabled) => setAutostart(enabled, command, currentPlatformEnv()),
    where: autostartFile(currentPlatformEnv()),
  };
}
