import path from 'node:path';
import { APP_ORIGIN } from './appOrigin.js';
import { buildCsp } from './windowOptions.js';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

/**
 * The file under `rendererDir` an app URL names, or undefined: other origins, traversal
 * (encoded or not), and unknown file types are refused. "/" and bare routes serve index.html.
 */
export function resolveAppAsset(requestUrl: string, rendererDir: string, appOrigin = APP_ORIGIN): string | undefined {
  let url: URL;
  let app: URL;
  try {
    url = new URL(requestUrl);
    app = new URL(appOrigin);
  } catch {
    return undefined;
  }
  if (url.protocol !== app.protocol || url.host !== app.host) return undefined;
  let pathname: string;
  try {
    pathname = decodeURIComponent(url.pathname);
  } catch {
    return undefined;
  }
  if (pathname.includes('\0') || pathname.includes('\\')) return undefined;
  const relative = pathname === '/' || path.posix.extname(pathname) === '' ? 'index.html' : pathname.replace(/^\/+/, '');
  const root = path.resolve(rendererDir);
  const file = path.resolve(root, relative);
  if (!file.startsWith(root + path.sep)) return undefined;
  return TYPES[path.extname(file)] ? file : undefined;
}

/** Headers every app response carries: its type, the strict CSP, no sniffing. */
export function appResponseHeaders(file: string): Record<string, string> {
  return {
    'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
    'content-security-policy': buildCsp(),
    'x-content-type-options': 'nosniff',
    'cross-origin-opener-policy': 'same-origin',
  };
}
