import { spawn } from 'node:child_process';

/**
 * Opens a URL in the user's browser: $KUBECRED_BROWSER (a program that takes the URL as its
 * one argument; tests point it at a scripted browser), else the platform's opener. Answers
 * false where there is no browser to open, so a login can fall back to the device grant.
 */
export class BrowserOpener {
  constructor(
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly platform: NodeJS.Platform = process.platform,
  ) {}

  command(): string[] | undefined {
    if (this.env.KUBECRED_BROWSER) return [this.env.KUBECRED_BROWSER];
    if (this.platform === 'darwin') return ['open'];
    if (this.platform === 'win32') return ['rundll32', 'url.dll,FileProtocolHandler'];
    return this.env.DISPLAY || this.env.WAYLAND_DISPLAY ? ['xdg-open'] : undefined;
  }

  async open(url: string): Promise<boolean> {
    const command = this.command();
    if (!command) return false;
    const [program, ...args] = command;
    return new Promise((resolve) => {
      const child = spawn(program!, [...args, url], { detached: true, stdio: 'ignore', env: this.env });
      child.once('error', () => resolve(false));
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
    });
  }
}
