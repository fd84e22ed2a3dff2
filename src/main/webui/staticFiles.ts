import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

export interface StaticFile {
  readonly body: Buffer;
  readonly type: string;
}

/**
 * A file of the built renderer, or undefined. Only known types, only inside `root`: the
 * path is normalised and must stay under it, so "/../" cannot reach the rest of the disk.
 */
export async function readStatic(root: string, urlPath: string): Promise<StaticFile | undefined> {
  let relative: string;
  try {
    relative = urlPath === '/' ? 'index.html' : decodeURIComponent(urlPath).replace(/^\/+/, '');
  } catch {
    return undefined; // malformed escapes name no file
  }
  root = resolve(root);
  const full = normalize(join(root, relative));
  if (!full.startsWith(root.endsWith(sep) ? root : root + sep)) return undefined;
  const type = TYPES[extname(full)];
  if (!type) return undefined;
  try {
    return { body: await readFile(full), type };
  } catch {
    return undefined;
  }
}
