/** An event source as Electron's powerMonitor and nativeTheme are (EventEmitters); tests pass their own. */
export interface EventSource {
  on(event: string, listener: () => void): unknown;
  removeListener(event: string, listener: () => void): unknown;
}

/**
 * powerMonitor's events after which the menu is stale: across a sleep the wall clock jumps while
 * the poll's timer does not, so times left and lifted guards read wrong until the next poll, up
 * to 15 s (electron review 2, F8).
 */
export const WAKE_EVENTS: readonly string[] = ['resume', 'unlock-screen'];

/**
 * nativeTheme's events after which the icon must be drawn again: only on Windows, whose taskbar
 * turns dark or light with the theme. macOS tints a template image itself, and Linux gets the
 * light icons whatever the theme.
 */
export function themeEvents(platform: NodeJS.Platform): readonly string[] {
  return platform === 'win32' ? ['updated'] : [];
}

/** Calls `listener` on each of `events` from `source`; returns the unsubscribe. */
export function followEvents(source: EventSource, events: readonly string[], listener: () => void): () => void {
  for (const event of events) source.on(event, listener);
  return () => {
    for (const event of events) source.removeListener(event, listener);
  };
}
