import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

// Without the background-networking flags chromium keeps dialling out, and this machine's
// closed network refuses it; --no-sandbox because tests run as root.
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface TestChromium {
  readonly context: BrowserContext;
  readonly page: Page;
  close(): Promise<void>;
}

/** Debian's chromium with a fresh profile, driven by playwright-core (which never downloads a browser here). */
export async function launchChromium(viewport = { width: 760, height: 620 }): Promise<TestChromium> {
  const profileDir = await mkdtemp(path.join(tmpdir(), 'kc-chromium-'));
  const context = await chromium.launchPersistentContext(profileDir, { executablePath: CHROMIUM_PATH, headless: true, args: FLAGS, viewport });
  const page = await context.newPage();
  return {
    context,
    page,
    close: async () => {
      await context.close();
      await rm(profileDir, { recursive: true, force: true });
    },
  };
}
