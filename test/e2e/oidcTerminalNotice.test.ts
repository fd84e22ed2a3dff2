import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserDriver } from '../support/browserDriver.js';
import { newestKubectl } from '../support/kubectl.js';
import type { TestIssuer } from '../support/oidcIssuer.js';
import { JourneyTranscript } from '../support/journeyTranscript.js';
import { startOidcKubectlWorld, type OidcKubectlWorld } from '../support/oidcKubectlWorld.js';
import { inTerminal } from '../support/terminal.js';

// New-user finding 1: an OIDC login started by kubectl on a broker with no browser to open
// used to hang kubectl in silence until the device code expired. Its terminal now shows the
// code and the page at once.
describe('kubectl in a terminal, an OIDC profile, and a broker that cannot open a browser', () => {
  let issuer: TestIssuer;
  let browser: BrowserDriver;
  let kubeconfig: string;
  const kubectl = newestKubectl();

  let world: OidcKubectlWorld | undefined;

  beforeAll(async () => {
    world = await startOidcKubectlWorld({
      // No display and no KUBECRED_BROWSER: nothing can open a browser, so the device grant runs.
      brokerEnv: () => ({ DISPLAY: '', WAYLAND_DISPLAY: '', KUBECRED_BROWSER: '' }),
      interactiveMode: 'IfAvailable',
    });
    ({ issuer, browser, kubeconfig } = world);
  }, 120_000);

  afterAll(async () => {
    await world?.close();
  });

  it("prints the device code and page on kubectl's terminal at once, then finishes once the user signs in", async () => {
    const journey = new JourneyTranscript('An OIDC login from kubectl in a terminal, with no browser to open');
    journey.did('kubectl get --raw /version (in a terminal; no display, no browser)');
    // `script` gives kubectl a real terminal, as a person's shell would.
    const terminal = journey.watch(
      'terminal',
      inTerminal(
        [kubectl.path, '--kubeconfig', kubeconfig, 'get', '--raw', '/version'],
        process.env as Record<string, string>,
      ),
    );
    const shown = await terminal.waitFor(
      /kubecred: sign in to profile "sso": open (\S+) and enter the code (\S+)\r?\n/,
      15_000,
    );
    const [, page, code] = shown.match;
    expect(page).toContain(`${issuer.issuer}/device`);
    journey.did('opens that page on another device, enters the code, signs in');
    await browser.deviceSignIn(page!, { userCode: code! });
    const ended = await terminal.exited;
    expect(ended.code, terminal.screen()).toBe(0);
    expect(terminal.screen()).toContain('"gitVersion"');
    expect(issuer.counts.deviceAuthorizations).toBe(1);
    await journey.save('oidc-device-terminal');
    process.stderr.write(`journey OIDC device login in a terminal: the code shown after ${shown.afterMs} ms\n`);
  });
});
