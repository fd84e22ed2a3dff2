import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiStandIn } from '../support/apiServer.js';
import { startIdTokenApi } from '../support/idTokenApi.js';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { startBrowser, type BrowserDriver } from '../support/browserDriver.js';
import { writeExecKubeconfig } from '../support/kubeconfig.js';
import { findKubectlBuilds } from '../support/kubectl.js';
import { startTestIssuer, type TestIssuer } from '../support/oidcIssuer.js';
import { NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

// New-user finding 1: an OIDC login started by kubectl on a broker with no browser to open
// used to hang kubectl in silence until the device code expired. Its terminal now shows the
// code and the page at once.
describe('kubectl in a terminal, an OIDC profile, and a broker that cannot open a browser', () => {
  let home: TempHome;
  let issuer: TestIssuer;
  let api: ApiStandIn;
  let broker: TestBroker;
  let browser: BrowserDriver;
  let kubeconfig: string;
  const kubectl = findKubectlBuilds()
    .filter((b) => b.name !== 'kubectl')
    .pop()!;

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    issuer = await startTestIssuer({ dir: path.join(home.dir, 'issuer') });
    api = await startIdTokenApi(issuer, path.join(home.dir, 'api-pki'));
    await writeConfig(
      home.dir,
      `profiles:\n  - name: sso\n    provider: oidc\n    issuer: ${issuer.issuer}\n    clientId: ${issuer.clientId}\n    caFile: ${issuer.caFile}\n`,
    );
    // No display and no KUBECRED_BROWSER: nothing can open a browser, so the device grant runs.
    broker = await startTestBroker(home.dir, { DISPLAY: '', WAYLAND_DISPLAY: '', KUBECRED_BROWSER: '' });
    browser = await startBrowser();
    kubeconfig = await writeExecKubeconfig({
      path: path.join(home.dir, 'kubeconfig'),
      server: api.url,
      caPem: api.caPem,
      command: NATIVE_SHIM,
      args: ['credential', 'sso'],
      apiVersion: 'client.authentication.k8s.io/v1',
      env: { KUBECRED_HOME: home.dir },
      provideClusterInfo: true,
      interactiveMode: 'IfAvailable',
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await broker?.stop();
    await api?.close();
    await issuer?.stop();
    await home?.cleanup();
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
