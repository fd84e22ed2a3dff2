import path from 'node:path';
import { Menu, Tray, nativeImage } from 'electron';
import type { ProfileSummary } from '../../shared/api/status.js';
import {
  STARTING_TOOLTIP,
  menuTemplate,
  startingMenuModel,
  trayIconImage,
  trayMenuModel,
  trayTooltip,
  type TrayAction,
  type TrayContext,
} from './trayMenuModel.js';

/** The tray icon: thin; everything it shows comes from trayMenuModel.ts. */
export class KubecredTray {
  private readonly tray: Tray;

  constructor(
    private readonly resourcesDir: string,
    private readonly run: (action: TrayAction) => void,
  ) {
    this.tray = new Tray(this.image([], Date.now()));
    this.tray.setToolTip(STARTING_TOOLTIP);
    this.tray.setContextMenu(Menu.buildFromTemplate(menuTemplate(startingMenuModel(), this.run)));
    // Windows and most Linux panels open an app on a left click; the menu stays on the right one.
    this.tray.on('click', () => this.run({ kind: 'open' }));
  }

  update(profiles: readonly ProfileSummary[], now = Date.now(), context: TrayContext = {}): void {
    const questions = context.questionsWaiting ?? 0;
    this.tray.setImage(this.image(profiles, now, questions));
    this.tray.setToolTip(trayTooltip(profiles, now, questions));
    this.tray.setContextMenu(Menu.buildFromTemplate(menuTemplate(trayMenuModel(profiles, now, context), this.run)));
  }

  destroy(): void {
    this.tray.destroy();
  }

  private image(profiles: readonly ProfileSummary[], now: number, questionsWaiting = 0) {
    const image = nativeImage.createFromPath(
      path.join(this.resourcesDir, trayIconImage(profiles, now, questionsWaiting)),
    );
    // Only macOS tints a template image to the menu bar; elsewhere it is shown as drawn.
    image.setTemplateImage(process.platform === 'darwin');
    return image;
  }
}
