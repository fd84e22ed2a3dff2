import path from 'node:path';
import { Menu, Tray, nativeImage, nativeTheme } from 'electron';
import type { ProfileSummary } from '../../shared/api/status.js';
import {
  STARTING_TOOLTIP,
  menuTemplate,
  startingMenuModel,
  trayIconImage,
  trayIconState,
  trayMenuModel,
  trayTooltip,
  type TrayAction,
  type TrayContext,
  type TrayIconState,
} from './trayMenuModel.js';

/** The tray icon: thin; everything it shows comes from trayMenuModel.ts. */
export class KubecredTray {
  private readonly tray: Tray;
  private state: TrayIconState = 'locked';

  constructor(
    private readonly resourcesDir: string,
    private readonly run: (action: TrayAction) => void,
    private readonly platform: NodeJS.Platform = process.platform,
  ) {
    this.tray = new Tray(this.image());
    this.tray.setToolTip(STARTING_TOOLTIP);
    this.tray.setContextMenu(Menu.buildFromTemplate(menuTemplate(startingMenuModel(), this.run)));
    // Windows and most Linux panels open an app on a left click; the menu stays on the right one.
    this.tray.on('click', () => this.run({ kind: 'open' }));
  }

  update(profiles: readonly ProfileSummary[], now = Date.now(), context: TrayContext = {}): void {
    const questions = context.questionsWaiting ?? 0;
    this.state = trayIconState(profiles, now, questions);
    this.tray.setImage(this.image());
    this.tray.setToolTip(trayTooltip(profiles, now, questions));
    this.tray.setContextMenu(Menu.buildFromTemplate(menuTemplate(trayMenuModel(profiles, now, context), this.run)));
  }

  /** Draws the icon again for the OS's colours now (Windows switched between dark and light). */
  restyle(): void {
    this.tray.setImage(this.image());
  }

  destroy(): void {
    this.tray.destroy();
  }

  private image() {
    const look = { platform: this.platform, darkColors: nativeTheme.shouldUseDarkColors };
    const image = nativeImage.createFromPath(path.join(this.resourcesDir, trayIconImage(this.state, look)));
    // Only macOS tints a template image to the menu bar; elsewhere it is shown as drawn.
    image.setTemplateImage(this.platform === 'darwin');
    return image;
  }
}
