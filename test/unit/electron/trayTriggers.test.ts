import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { WAKE_EVENTS, followEvents, themeEvents } from '../../../src/main/electron/trayTriggers.js';

// Electron review 2, F8: after sleep the menu read "guard lifted, back in 14 min" for up to 15 s.
describe('what the tray follows besides its poll', () => {
  it('refreshes at once when the machine resumes or the screen unlocks, and stops when told', () => {
    const powerMonitor = new EventEmitter();
    let refreshes = 0;
    const unfollow = followEvents(powerMonitor, WAKE_EVENTS, () => refreshes++);
    powerMonitor.emit('resume');
    powerMonitor.emit('unlock-screen');
    powerMonitor.emit('suspend');
    expect(refreshes).toBe(2);
    unfollow();
    powerMonitor.emit('resume');
    expect(refreshes).toBe(2);
    expect(powerMonitor.listenerCount('resume')).toBe(0);
  });

  // Electron review 2, F4: the Windows taskbar turns dark or light with the theme.
  it("redraws the icon when Windows' theme changes; elsewhere the icon does not depend on it", () => {
    expect(themeEvents('win32')).toEqual(['updated']);
    expect(themeEvents('linux')).toEqual([]);
    expect(themeEvents('darwin')).toEqual([]);
    const nativeTheme = new EventEmitter();
    let redraws = 0;
    followEvents(nativeTheme, themeEvents('win32'), () => redraws++);
    nativeTheme.emit('updated');
    expect(redraws).toBe(1);
  });
});
