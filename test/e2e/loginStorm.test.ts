import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { V1_EXEC_INFO } from '../support/callers.js';
import { startTestIssuer, type TestIssuer } from '../support/oidcIssuer.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';
import { inTerminal } from '../support/terminal.js';

const CALLERS = 50;
const STORM_MS = 60_000;
/** An IDE's patience: it kills kubectl after a few seconds and asks again on its next poll. */
const CALLER_PATIENCE_MS = 3_000;
const POLL_EVERY_MS = 2_000;

/**
 * Issue 42, login storms (int128/kubelogin #904, #1330; Teleport #22494): a program that keeps
 * asking (Lens, an IDE, k9s) after a login was left unfinished must not open a page each time.
 * 50 callers with no terminal poll a real OIDC issuer's profile for a minute, each giving up
 * after a few seconds as an IDE does; the browser stand-in counts the pages the broker opened.
 * A kubectl in a terminal afterwards is the person: it opens a page at once.
 */
describe('a login storm: 50 programs polling a profile nobody signs in to', () => {
  let home: TempHome;
  let issuer: TestIssuer;
  let broker: TestBroker;
  let browserStandIn: RecordingBrowser;
  const env = () => ({ ...brokerEnv(home.dir), KUBERNETES_EXEC_INFO: V1_EXEC_INFO });

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    issuer = await startTestIssuer({ dir: path.join(home.dir, 'issuer') });
    browserStandIn = await recordingBrowser(home.dir);
    await writeConfig(
      home.dir,
      `profiles:\n  - name: sso\n    provider: oidc\n    issuer: ${issuer.issuer}\n    clientId: ${issuer.clientId}\n    caFile: ${issuer.caFile}\n`,
    );
    broker = await startTestBroker(home.dir, { KUBECRED_BROWSER: browserStandIn.command });
  }, 120_000);

  afterAll(async () => {
    await broker?.stop();
    await issuer?.stop().catch(() => undefined);
    await home?.cleanup();
  });

  it('opens one page for the storm, tells the pollers why at once, and a terminal kubectl still gets a page', async () => {
    const end = Date.now() + STORM_MS;
    const stderrs: string[] = [];
    let calls = 0;
    // The person says no at the issuer (Cancel on its page): it sends the browser back with
    // access_denied, and the login ends at once, unfinished.
    const first = run(NATIVE_SHIM, ['credential', 'sso'], { env: env(), timeoutMs: 30_000 });
    const authorize = new URL(await browserStandIn.target(0));
    const back = new URL(authorize.searchParams.get('redirect_uri')!);
    back.searchParams.set('error', 'access_denied');
    back.searchParams.set('state', authorize.searchParams.get('state')!);
    await fetch(back).then((answer) => answer.text());
    const denied = await first;
    expect(denied.stderr).toContain('was refused at the issuer');
    // In waves, as pollers on one timer do: every caller of a wave gives up together, so the
    // login it started is left with nobody waiting, as when the person ignores the page.
    while (Date.now() < end) {
      await Promise.all(
        Array.from({ length: CALLERS }, async () => {
          const asked = await run(NATIVE_SHIM, ['credential', 'sso'], { env: env(), timeoutMs: CALLER_PATIENCE_MS });
          calls++;
          if (asked.stderr) stderrs.push(asked.stderr);
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, POLL_EVERY_MS));
    }
    const pages = (await browserStandIn.opened()).length;
    process.stdout.write(
      `login storm: ${CALLERS} callers, ${calls} calls in ${STORM_MS / 1000} s, ${pages} page(s) opened\n`,
    );
    // The page the person said no to; and at most one more, once the first pause (a minute) is over.
    expect(pages).toBeGreaterThanOrEqual(1);
    expect(pages).toBeLessThanOrEqual(2);
    expect(calls).toBeGreaterThanOrEqual(CALLERS * 5);
    expect(stderrs.some((text) => text.includes('opens no new sign-in page for a program without a terminal'))).toBe(
      true,
    );
    expect(stderrs.some((text) => text.includes('kubecred login sso'))).toBe(true);

    const typed = inTerminal([NATIVE_SHIM, 'credential', 'sso'], env());
    await expect.poll(async () => (await browserStandIn.opened()).length, { timeout: 15_000 }).toBe(pages + 1);
    typed.kill();
    await typed.exited;
  }, 180_000);
});
