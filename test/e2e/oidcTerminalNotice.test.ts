import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserDriver } from '../support/browserDriver.js';
import { newestKubectl } from '../support/kubectl.js';
import type { TestIssuer } from '../support/oidcIssuer.js';
import { startOidcKubectlWorld, type OidcKubectlWorld } from '../support/oidcKubectlWorld.js';

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
    // `script` gives kubectl a real terminal, as a person's shell would.
    const command = `${kubectl.path} --kubeconfig ${kubeconfig} get --raw /version`;
    const child = spawn('script', ['-qefc', command, '/dev/null'], {
      env: { ...process.env, TERM: 'dumb' } as Record<string, string>,
    });
    let screen = '';
    child.stdout.on('data', (c: Buffer) => (screen += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    const shown = /kubecred: sign in to profile "sso": open (\S+) and enter the code (\S+)\r?\n/;
    await expect.poll(() => screen, { timeout: 15_000, message: 'kubectl showed no device code' }).toMatch(shown);
    const [, page, code] = shown.exec(screen)!;
    expect(page).toContain(`${issuer.issuer}/device`);
    await browser.deviceSignIn(page!, { userCode: code! });
    expect(await exited).toBe(0);
    expect(screen).toContain('"gitVersion"');
    expect(issuer.counts.deviceAuthorizations).toBe(1);
  });
});
