import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { writeExecKubeconfig } from '../support/kubeconfig.js';
import { newestKubectl, WHOAMI_ARGS } from '../support/kubectl.js';
import { startKeystoneCluster, type KeystoneCluster } from '../support/keystoneCluster.js';
import type { KeystoneStandIn } from '../support/keystoneStandIn.js';
import { NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';
import { JourneyTranscript } from '../support/journeyTranscript.js';
import { inTerminal, withoutTerminal } from '../support/terminal.js';

const PASSWORD = 'correct horse battery';
const FIRST_WORD_MS = 5_000;

/**
 * Issue 26, item 8 (N7): a Keystone profile with no password stored, and no window to ask in.
 * kubectl in a terminal asks for the password there, as it asks a PIN or an MFA code; with no
 * terminal either, kubectl is told at once where to answer, never that it "was cancelled".
 * Real kubectl, a real kube-apiserver whose webhook authenticator asks Keystone, the Keystone
 * stand-in.
 */
describe('journey: a Keystone login from kubectl with no window', () => {
  let home: TempHome;
  let cluster: KeystoneCluster;
  let keystone: KeystoneStandIn;
  let broker: TestBroker;
  let kubeconfig: string;
  const kubectl = newestKubectl();
  const { cli } = callersFor(() => home.dir);
  const whoami = () => [kubectl.path, '--kubeconfig', kubeconfig, ...WHOAMI_ARGS];

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    cluster = await startKeystoneCluster(home.dir);
    keystone = cluster.keystone;
    await writeConfig(
      home.dir,
      `profiles:\n  - { name: openstack, provider: keystone, authUrl: ${keystone.authUrl}, username: alice, userDomainName: Default, projectName: demo, projectDomainName: Default }\n`,
    );
    // No browser can open, and the web UI never started: nowhere to show a form.
    broker = await startTestBroker(home.dir, { KUBECRED_BROWSER: '', DISPLAY: '', WAYLAND_DISPLAY: '' });
    kubeconfig = await writeExecKubeconfig({
      path: path.join(home.dir, 'kubeconfig'),
      server: cluster.api.url,
      caPem: cluster.api.caPem,
      command: NATIVE_SHIM,
      args: ['credential', 'openstack'],
      apiVersion: 'client.authentication.k8s.io/v1',
      env: { KUBECRED_HOME: home.dir },
      interactiveMode: 'IfAvailable',
    });
  }, 180_000);

  afterAll(async () => {
    await broker?.stop();
    await cluster?.stop();
    await home?.cleanup();
  });

  it('no terminal: kubectl is told at once that the password is needed and where to give it, not "cancelled"', async () => {
    const journey = new JourneyTranscript('Keystone from kubectl with no terminal and no window');
    journey.did('kubectl auth whoami (no terminal, no window, no browser)');
    const call = journey.watch('kubectl stderr', withoutTerminal(whoami(), brokerEnv(home.dir)));
    const ended = await call.exited;
    await journey.save('keystone-no-terminal');
    expect(ended.code).not.toBe(0);
    expect(ended.afterMs).toBeLessThan(FIRST_WORD_MS);
    expect(call.screen()).toMatch(/profile "openstack" needs its Keystone password and there is no window to ask in/);
    expect(call.screen()).toMatch(/Run the command in a terminal, or run: kubecred ui/);
    expect(call.screen()).not.toMatch(/cancelled/);
    expect(keystone.tokens).toHaveLength(0);
  });

  it('in a terminal: kubectl asks for the password there (hidden), and the password typed logs in', async () => {
    const journey = new JourneyTranscript('Keystone from kubectl in a terminal with no window');
    journey.did('kubectl auth whoami (in a terminal)');
    const call = journey.watch('terminal', inTerminal(whoami(), brokerEnv(home.dir)));
    const asked = await call.waitFor(
      /Kubecred: Keystone password or application credential secret for profile openstack \(input hidden\): /,
      FIRST_WORD_MS,
    );
    call.typeLine(PASSWORD);
    const ended = await call.exited;
    expect(ended.code, call.screen()).toBe(0);
    expect(call.screen()).toContain('keystone:alice');
    expect(call.screen()).not.toContain(PASSWORD);
    expect(keystone.tokens).toHaveLength(1);
    // Asked, not remembered: the typed password is in no store.
    journey.did('kubectl auth whoami, again');
    const next = journey.watch('terminal', withoutTerminal(whoami(), brokerEnv(home.dir)));
    expect((await next.exited).code, next.screen()).toBe(0);
    expect(keystone.tokens).toHaveLength(1);
    await journey.save('keystone-terminal');
    process.stderr.write(
      `journey Keystone in a terminal: asked after ${asked.afterMs} ms, done after ${ended.afterMs} ms\n`,
    );
  });

  it('a wrong password typed in the terminal: Keystone refuses it once, and kubectl says so', async () => {
    expect((await cli(['logout', 'openstack'])).code).toBe(0);
    const call = inTerminal(whoami(), brokerEnv(home.dir));
    await call.waitFor(
      /Kubecred: Keystone password or application credential secret for profile openstack/,
      FIRST_WORD_MS,
    );
    call.typeLine('not the password');
    const ended = await call.exited;
    expect(ended.code).not.toBe(0);
    expect(call.screen()).toMatch(/Keystone .*refused|401|not accepted|wrong/i);
    expect(call.screen()).not.toContain('not the password');
    expect(call.screen()).not.toMatch(/no window to ask in/);
  });
});
