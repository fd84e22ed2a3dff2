import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { followLink } from '../../src/main/demo/scriptedBrowser.js';

export interface RecordingBrowser {
  /** For $KUBECRED_BROWSER: a program that records each URL the broker opens. */
  readonly command: string;
  /**
   * The n-th URL handed to the browser (0-based), exactly as handed, waiting for it to come:
   * for a link that carries a secret, the file:// URL of Kubecred's private redirect page.
   */
  nth(index: number, timeoutMs?: number): Promise<string>;
  /**
   * Opens the n-th URL in a real browser page as the system browser would: the very file://
   * page it was handed, then wherever that page sends it. Resolves on the page that arrived.
   */
  openIn(page: Page, index: number, timeoutMs?: number): Promise<string>;
  /**
   * Where the n-th link leads (a redirect page's target), for a test that reads its query
   * (an OIDC state, a redirect_uri) or calls an API with it. Never a way to open the UI: that
   * is openIn, through the page the browser gets.
   */
  target(index: number, timeoutMs?: number): Promise<string>;
  /** The n-th argument the browser was started with, as every local user could read it in /proc. */
  argument(index: number, timeoutMs?: number): Promise<string>;
  opened(): Promise<string[]>;
}

/**
 * Stands in for the system browser: the test reads what the broker opened and drives a real
 * browser with it. Kubecred hands browsers a private file:// redirect page (never a secret on
 * argv); the stand-in keeps a copy of it, as a browser reads it at once, before it expires.
 */
export async function recordingBrowser(dir: string): Promise<RecordingBrowser> {
  const command = path.join(dir, 'browser.sh');
  const log = path.join(dir, 'opened-urls.txt');
  await writeFile(
    command,
    `#!/bin/sh\nn=$(cat '${log}' 2>/dev/null | wc -l)\ncase "$1" in file://*) cp "\${1#file://}" '${dir}'/page-$n.html ;; esac\nprintf '%s\\n' "$1" >> '${log}'\n`,
    { mode: 0o755 },
  );
  const opened = () => recordedUrls(log);
  const argument = (index: number, timeoutMs = 30_000) => nthRecordedUrl(log, index, timeoutMs);
  return {
    command,
    opened,
    argument,
    nth: argument,
    openIn: async (page, index, timeoutMs) => followLink(page, await argument(index, timeoutMs)),
    target: async (index, timeoutMs) => {
      const url = await argument(index, timeoutMs);
      if (!url.startsWith('file://')) return url;
      return redirectTarget(await readFile(path.join(dir, `page-${index}.html`), 'utf8'));
    },
  };
}

/** Where a Kubecred redirect page sends the browser. */
export function redirectTarget(page: string): string {
  const target = /http-equiv="refresh" content="0;url=([^"]*)"/.exec(page)?.[1];
  if (!target) throw new Error(`not a redirect page: ${page.slice(0, 200)}`);
  return target
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The URLs a stand-in browser noted in `log`, one a line, in the order it was handed them. */
export async function recordedUrls(log: string): Promise<string[]> {
  return (await readFile(log, 'utf8').catch(() => '')).split(/\r?\n/).filter(Boolean);
}

/** The n-th URL a stand-in browser noted in `log` (0-based), waiting for it to come. */
export async function nthRecordedUrl(log: string, index: number, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const urls = await recordedUrls(log);
    if (urls.length > index) return urls[index]!;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the broker did not open URL #${index + 1} in the browser within ${timeoutMs} ms`);
}
