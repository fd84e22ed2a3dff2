import { randomBytes } from 'node:crypto';
import { lstat, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { UrlOpener } from '../core/ports.js';
import { BrowserOpener } from './browserOpener.js';
import type { KubecredPaths } from './paths.js';

/** How long a redirect file lives if the browser never reads it: enough for a cold browser start. */
const DEFAULT_TTL_MS = 120_000;

/**
 * Opens a URL that carries a secret (the web UI's one-time token, an OIDC `state`) without
 * putting the secret on a command line: the argv of the opener and of a fresh browser is
 * readable by every local user in /proc. The URL goes into a 0600 redirect page in a 0700
 * directory of ours, and the browser is given only that file's path. Nobody else can read the
 * page, and it is removed after a short while, used or not.
 */
export class PrivateLinkOpener implements UrlOpener {
  constructor(
    private readonly opener: UrlOpener,
    private readonly dir: string,
    private readonly ttlMs: number = DEFAULT_TTL_MS,
  ) {}

  async open(url: string): Promise<boolean> {
    await this.ensurePrivateDir();
    const file = path.join(this.dir, `${randomBytes(16).toString('hex')}.html`);
    // 'wx': never write through a file someone planted under this name.
    await writeFile(file, redirectPage(url), { mode: 0o600, flag: 'wx' });
    const removal = setTimeout(() => void rm(file, { force: true }), this.ttlMs);
    removal.unref();
    const opened = await this.opener.open(pathToFileURL(file).href).catch(() => false);
    if (!opened) {
      clearTimeout(removal);
      await rm(file, { force: true });
    }
    return opened;
  }

  private async ensurePrivateDir(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const info = await lstat(this.dir);
    const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
    const foreign =
      (uid !== undefined && info.uid !== uid) || (process.platform !== 'win32' && (info.mode & 0o077) !== 0);
    if (!info.isDirectory() || foreign) {
      throw new Error(`${this.dir} is not a private directory of this user; remove it and try again`);
    }
  }
}

/** A page that sends the browser on at once; it loads nothing and runs no script. */
export function redirectPage(url: string): string {
  const target = escapeHtml(url);
  return [
    '<!doctype html>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'">`,
    '<meta name="referrer" content="no-referrer">',
    `<meta http-equiv="refresh" content="0;url=${target}">`,
    '<title>Kubecred</title>',
    `<p>Opening Kubecred… <a href="${target}">Continue</a></p>`,
    '',
  ].join('\n');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The system browser behind a private redirect page in the run dir: how Kubecred opens every link. */
export function privateBrowserOpener(
  paths: Pick<KubecredPaths, 'runDir'>,
  env: NodeJS.ProcessEnv = process.env,
): UrlOpener {
  return new PrivateLinkOpener(new BrowserOpener(env), path.join(paths.runDir, 'links'));
}
