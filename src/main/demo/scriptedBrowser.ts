import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/**
 * Debian's chromium driven by playwright-core, as the user's browser in OIDC tests: it signs
 * in on oidc-provider's devInteractions pages (any login name works), gives consent, and lets
 * the redirect reach Kubecred's loopback server. Playwright never downloads a browser here.
 */
export interface BrowserDriver {
  /** How long chromium took to start, for the report. */
  readonly startupMs: number;
  /** Follows an authorization URL through login and consent to the loopback redirect; its page's text. */
  signIn(url: string, options?: SignInOptions): Promise<string>;
  /** Opens verification_uri_complete (or verification_uri and types the code), confirms, logs in, consents. */
  deviceSignIn(verificationUri: string, options?: SignInOptions & { userCode?: string }): Promise<string>;
  /** Forgets the issuer session, so the next sign-in shows the login page again. */
  forgetSessions(): Promise<void>;
  close(): Promise<void>;
}

export interface SignInOptions {
  readonly login?: string;
  /** Click "Cancel" on the login page instead of signing in (the issuer answers access_denied). */
  readonly deny?: boolean;
  /** Save screenshots of the pages passed, as <dir>/<prefix>-<page>.png. */
  readonly screenshots?: { readonly dir: string; readonly prefix: string };
}

export const CHROMIUM = '/usr/bin/chromium';

// Without the background-networking flags chromium keeps dialling out, and a closed network
// refuses it; --no-sandbox because the demo's checks and the tests may run as root.
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * `through`: a proxy the browser reaches the issuer by, as a company's browsers do, and the
 * host it may reach through it (everything else but loopback stays blocked).
 */
export async function startBrowser(through?: {
  readonly proxy: { server: string; username?: string; password?: string };
  readonly host: string;
}): Promise<BrowserDriver> {
  const profileDir = await mkdtemp(join(tmpdir(), 'kc-chromium-'));
  const started = Date.now();
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    // The test issuer's certificate comes from a throw-away CA the browser does not know.
    ignoreHTTPSErrors: true,
    viewport: { width: 800, height: 640 },
    ...(through ? { proxy: through.proxy } : {}),
  });
  const startupMs = Date.now() - started;
  // The devInteractions pages import a web font; nothing may leave the machine, and waiting on it would stall the page.
  await context.route(
    (url) => url.protocol !== 'file:' && !['127.0.0.1', 'localhost', through?.host].includes(url.hostname),
    (route) => route.abort(),
  );

  return {
    startupMs,
    signIn: (url, options = {}) => walk(context, url, options, (page) => new URL(page.url()).pathname === '/callback'),
    deviceSignIn: (url, options = {}) =>
      walk(context, url, options, async (page) => (await page.title()) === 'Sign-in Success'),
    forgetSessions: () => context.clearCookies(),
    close: async () => {
      await context.close();
      await rm(profileDir, { recursive: true, force: true });
    },
  };
}

/** Answers whatever page the issuer shows until `done` says the journey is over. */
async function walk(
  context: BrowserContext,
  url: string,
  options: SignInOptions & { userCode?: string },
  done: (page: Page) => boolean | Promise<boolean>,
): Promise<string> {
  const page = await context.newPage();
  const shot = async (name: string) => {
    if (!options.screenshots) return;
    await mkdir(options.screenshots.dir, { recursive: true });
    await page.screenshot({
      path: join(options.screenshots.dir, `${options.screenshots.prefix}-${name}.png`),
      fullPage: true,
    });
  };
  try {
    await followLink(page, url);
    for (let step = 0; step < 8; step += 1) {
      await page.waitForLoadState('load');
      if (await done(page)) {
        await shot('done');
        return (await page.locator('body').innerText()).trim();
      }
      const before = page.url();
      const next = () => page.waitForURL((current) => current.href !== before, { waitUntil: 'load' });
      if (await page.locator('input[name="user_code"][type="text"]').count()) {
        await shot('device-code');
        await page.fill('input[name="user_code"]', options.userCode ?? '');
        await Promise.all([next(), page.click('button[form="op.deviceInputForm"]')]);
      } else if (await page.locator('form#op\\.deviceConfirmForm').count()) {
        await shot('device-confirm');
        await Promise.all([next(), page.click('button[form="op.deviceConfirmForm"]:not([name="abort"])')]);
      } else if (await page.locator('input[name="login"]').count()) {
        await shot('login');
        if (options.deny) {
          await Promise.all([next(), page.click('a[href$="/abort"]')]);
        } else {
          await page.fill('input[name="login"]', options.login ?? 'alice');
          await page.fill('input[name="password"]', 'any password works here');
          await Promise.all([next(), page.click('button[type="submit"]')]);
        }
      } else if (await page.locator('input[name="prompt"][value="consent"]').count()) {
        await shot('consent');
        await Promise.all([next(), page.click('button[type="submit"]')]);
      } else {
        throw new Error(
          `the browser reached a page the test does not know: ${new URL(page.url()).pathname} "${await page.title()}": ${(await page.locator('body').innerText()).slice(0, 300)}`,
        );
      }
    }
    throw new Error(`the sign-in did not finish; last page ${new URL(page.url()).pathname}`);
  } finally {
    await page.close();
  }
}

/**
 * Goes where a link handed to the system browser goes: Kubecred hands browsers a private
 * file:// page that sends them on, so that is loaded first, as a browser would, and its
 * navigation followed. Resolves with the URL the page arrived at.
 */
export async function followLink(page: Page, url: string, timeoutMs = 15_000): Promise<string> {
  await page.goto(url, { timeout: timeoutMs });
  if (url.startsWith('file:'))
    await page.waitForURL((current) => current.protocol !== 'file:', { waitUntil: 'load', timeout: timeoutMs });
  return page.url();
}
