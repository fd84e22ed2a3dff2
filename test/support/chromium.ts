import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS } from '../../src/main/demo/scriptedBrowser.js';
import { REPO_ROOT } from './repo.js';

export interface TestChromium {
  readonly context: BrowserContext;
  readonly page: Page;
  close(): Promise<void>;
}

/** Debian's chromium with a fresh profile, driven by playwright-core (which never downloads a browser here). */
export async function launchChromium(viewport = { width: 760, height: 620 }): Promise<TestChromium> {
  const profileDir = await mkdtemp(path.join(tmpdir(), 'kc-chromium-'));
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport,
  });
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

/** The renderer built as users get it: its own process, since vitest's NODE_ENV=test would build React's development bundle. */
export async function buildRenderer(): Promise<void> {
  await promisify(execFile)(
    process.execPath,
    [path.join(REPO_ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build'],
    { cwd: REPO_ROOT, env: { ...process.env, NODE_ENV: 'production' } },
  );
}
