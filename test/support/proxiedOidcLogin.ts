import { expect } from 'vitest';
import { startBrowser, type BrowserDriver } from './browserDriver.js';
import type { TestIssuer } from './oidcIssuer.js';
import type { RecordingBrowser } from './recordingBrowser.js';
import type { RunResult } from './run.js';

/**
 * `kubecred login` with Chromium signing in through the same proxy as the broker (as a company's
 * browsers do), then `kubecred refresh`: both must pass, and the issuer must count the refresh.
 * The browser is returned for the caller to close (closed here if the journey fails).
 */
export async function loginAndRefreshThroughProxy(options: {
  readonly cli: (args: string[]) => Promise<RunResult>;
  readonly profile: string;
  readonly issuer: TestIssuer;
  readonly browserStandIn: RecordingBrowser;
  readonly proxy: { server: string; username?: string; password?: string };
}): Promise<{ login: RunResult; refresh: RunResult; browser: BrowserDriver }> {
  const { cli, profile, issuer } = options;
  const host = new URL(issuer.issuer).hostname;
  const grantsBefore = issuer.counts.grants.refresh_token ?? 0;
  const running = cli(['login', profile]);
  const authorize = await options.browserStandIn.target(0, 30_000);
  expect(new URL(authorize).hostname).toBe(host);
  // startBrowser ignores certificate errors (the test issuer's CA, or an inspecting proxy's root):
  // that is the browser's trust only, never the broker's.
  const browser = await startBrowser({ proxy: options.proxy, host });
  try {
    await browser.signIn(authorize);
    const login = await running;
    expect(login.code, login.stderr).toBe(0);

    const refresh = await cli(['refresh', profile]);
    expect(refresh.code, refresh.stderr).toBe(0);
    expect(issuer.counts.grants.refresh_token ?? 0).toBe(grantsBefore + 1);
    return { login, refresh, browser };
  } catch (error) {
    await browser.close();
    throw error;
  }
}
