import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface RecordingBrowser {
  /** For $KUBECRED_BROWSER: a program that records each URL the broker opens. */
  readonly command: string;
  /** The n-th URL opened (0-based), waiting for it to come. */
  nth(index: number, timeoutMs?: number): Promise<string>;
  opened(): Promise<string[]>;
}

/** Stands in for the system browser: the test reads what the broker opened and drives a real browser with it. */
export async function recordingBrowser(dir: string): Promise<RecordingBrowser> {
  const command = path.join(dir, 'browser.sh');
  const log = path.join(dir, 'opened-urls.txt');
  await writeFile(command, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${log}'\n`, { mode: 0o755 });
  const opened = async () => (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  return {
    command,
    opened,
    nth: async (index, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const urls = await opened();
        if (urls.length > index) return urls[index]!;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`the broker did not open URL #${index + 1} in the browser within ${timeoutMs} ms`);
    },
  };
}
