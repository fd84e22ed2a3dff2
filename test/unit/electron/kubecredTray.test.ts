import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ProfileSummary } from '../../../src/shared/api/status.js';

/** Stand-ins for Electron's Tray, Menu, nativeImage and nativeTheme: they record what the tray is given. */
const electron = vi.hoisted(() => {
  const trays: Array<{ images: string[]; tooltips: string[]; menus: unknown[] }> = [];
  const theme = { shouldUseDarkColors: true };
  class Tray {
    readonly images: string[] = [];
    readonly tooltips: string[] = [];
    readonly menus: unknown[] = [];
    constructor(image: { file: string }) {
      this.images.push(image.file);
      trays.push(this);
    }
    setImage(image: { file: string }) {
      this.images.push(image.file);
    }
    setToolTip(text: string) {
      this.tooltips.push(text);
    }
    setContextMenu(menu: unknown) {
      this.menus.push(menu);
    }
    on() {}
    destroy() {}
  }
  const nativeImage = {
    createFromPath: (file: string) => ({ file: file.split(/[\\/]/).pop() ?? file, setTemplateImage: () => undefined }),
  };
  return {
    trays,
    theme,
    module: { Tray, Menu: { buildFromTemplate: (t: unknown) => t }, nativeImage, nativeTheme: theme },
  };
});
vi.mock('electron', () => electron.module);

const { KubecredTray } = await import('../../../src/main/electron/tray.js');

const signedIn: ProfileSummary = {
  name: 'sso',
  provider: 'oidc',
  state: 'ready',
  expiresAt: '2026-01-01T00:42:00.000Z',
  lastError: null,
};
const labels = (menu: unknown) => (menu as Array<{ label?: string; type?: string }>).map((i) => i.type ?? i.label);

describe('the tray icon (Electron stand-ins)', () => {
  beforeEach(() => {
    electron.trays.splice(0);
    electron.theme.shouldUseDarkColors = true;
  });

  // Electron review 2, F9: no menu and no tooltip until the first refresh ended.
  it('has a tooltip and a menu from the start, before the broker answers', () => {
    new KubecredTray('/res', () => undefined, 'linux');
    const [tray] = electron.trays;
    expect(tray?.tooltips).toEqual(['Kubecred: starting…']);
    expect(labels(tray?.menus[0])).toEqual(['Kubecred: starting…', 'separator', 'Open Kubecred', 'separator', 'Quit']);
  });

  // Electron review 2, F4.
  it("follows Windows' theme: light icons while dark, template ones once light, for the state last shown", () => {
    const tray = new KubecredTray('/res', () => undefined, 'win32');
    tray.update([signedIn], Date.parse('2026-01-01T00:00:00Z'));
    electron.theme.shouldUseDarkColors = false;
    tray.restyle();
    expect(electron.trays[0]?.images).toEqual([
      'trayLockedLight.png',
      'traySignedInLight.png',
      'traySignedInTemplate.png',
    ]);
  });

  it('shows the light icons on Linux and the attention one while a question waits', () => {
    const tray = new KubecredTray('/res', () => undefined, 'linux');
    electron.theme.shouldUseDarkColors = false;
    tray.update([signedIn], Date.parse('2026-01-01T00:00:00Z'), { questionsWaiting: 1 });
    expect(electron.trays[0]?.images.at(-1)).toBe('trayAttentionLight.png');
    expect(electron.trays[0]?.tooltips.at(-1)).toBe('Kubecred: 1 question waiting');
  });
});
