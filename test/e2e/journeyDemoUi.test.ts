import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type TestChromium } from '../support/chromium.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { KUBECRED_CLI, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';
import { withoutTerminal, type TerminalSession } from '../support/terminal.js';

/**
 * Issue 26, item 12 (N15): a newcomer runs the demo, reads "Try it yourself", and types the
 * `kubecred ui` line it prints. That opens the demo broker's web UI in the browser (it used to
 * say "use the tray icon", and there is none), showing the demo's profiles.
 */
describe('journey: the demo, then its web UI from the line it prints', () => {
  let tmp: TempHome;
  let demo: TerminalSession;
  let chromium: TestChromium;
  let browserStandIn: RecordingBrowser;

  beforeAll(async () => {
    assertBuilt({ shim: true });
    tmp = await makeTempHome();
    browserStandIn = await recordingBrowser(tmp.dir);
    chromium = await launchChromium({ width: 1000, height: 700 });
  }, 60_000);

  afterAll(async () => {
    // Ctrl-C, as a person stops it: the demo removes its files and stops its API server.
    demo?.kill('SIGINT');
    await demo?.exited;
    await chromium?.close();
    await tmp?.cleanup();
  });

  it('prints `kubecred ui` among the lines to try, and that line opens the web UI with the demo profiles', async () => {
    demo = withoutTerminal([process.execPath, KUBECRED_CLI, 'demo'], {
      ...(process.env as Record<string, string>),
      TMPDIR: tmp.dir,
      KUBECRED_DEMO_HOME: '',
      KUBECRED_BROWSER: browserStandIn.command,
    });
    const { match } = await demo.waitFor(/\n {2}(KUBECRED_HOME=(\S+) (\S+) ui)\s+# the window/, 120_000);
    const [, , home, cli] = match;
    expect(cli).toBe(KUBECRED_CLI);
    // The line as a person pastes it: the CLI hands the browser its file:// page.
    const typed = await run(process.execPath, [KUBECRED_CLI, 'ui'], {
      env: {
        ...(process.env as Record<string, string>),
        KUBECRED_HOME: home!,
        KUBECRED_BROWSER: browserStandIn.command,
      },
    });
    expect(typed.code, typed.stderr).toBe(0);
    expect(typed.stderr).toContain('opened the web UI in your browser');
    await browserStandIn.openIn(chromium.page, 0);
    for (const profile of ['demo', 'sso'])
      await chromium.page.locator(`[data-profile="${profile}"]`).waitFor({ timeout: 15_000 });
    demo.kill('SIGINT');
    expect((await demo.exited).code).toBe(0);
    expect(demo.screen()).toMatch(/Removed the demo's files/);
  });
});
