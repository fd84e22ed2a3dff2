import { afterEach, describe, expect, it } from 'vitest';
import { brokerEnv } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { newestKubectl } from '../support/kubectl.js';
import { startOidcKubectlWorld, type OidcKubectlWorld } from '../support/oidcKubectlWorld.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { JourneyTranscript } from '../support/journeyTranscript.js';
import { withoutTerminal } from '../support/terminal.js';

// The broker stops within this of being asked, even with a login waiting on a person.
const STOP_MS = 2_000;

/**
 * Issue 26, item 6: a browser login that kubectl started waits on a person who never signs in;
 * then the person stops the broker (`kubecred stop`, or SIGTERM from systemd or a logout).
 * The broker used to hold on until the login timed out 5 minutes later. Now the waiting
 * kubectl is told the broker stopped and what to do, and the broker is gone within 2 s.
 */
describe('journey: stopping the broker while a login waits', () => {
  let world: OidcKubectlWorld | undefined;
  let browserStandIn: RecordingBrowser;

  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  const start = async (journey: JourneyTranscript) => {
    world = await startOidcKubectlWorld({
      brokerEnv: async (dir) => {
        browserStandIn = await recordingBrowser(dir);
        return { KUBECRED_BROWSER: browserStandIn.command };
      },
      profileLines: ['flow: browser'],
    });
    journey.did('kubectl get --raw /version (an OIDC profile; the browser opens, nobody signs in)');
    const kubectl = journey.watch(
      'kubectl stderr',
      withoutTerminal(
        [newestKubectl().path, '--kubeconfig', world.kubeconfig, 'get', '--raw', '/version'],
        brokerEnv(world.home.dir),
      ),
    );
    // The login is under way: the issuer's page went to the browser, and nobody signs in.
    await browserStandIn.argument(0, 15_000);
    await kubectl.waitFor(/kubecred: sign in to profile "sso" in your browser/, 5_000);
    return { world, kubectl };
  };

  const expectToldAndGone = async (
    { world, kubectl }: Awaited<ReturnType<typeof start>>,
    stop: () => Promise<unknown>,
  ) => {
    const asked = performance.now();
    const broker = world.broker.process;
    const brokerGone = new Promise<number>((resolve) =>
      broker.exitCode !== null ? resolve(0) : broker.once('exit', () => resolve(performance.now() - asked)),
    );
    await stop();
    const ended = await kubectl.exited;
    const toldMs = Math.round(performance.now() - asked);
    const goneMs = Math.round(await brokerGone);
    expect(ended.code).not.toBe(0);
    expect(kubectl.screen()).toMatch(/the Kubecred broker stopped while this login waited/);
    expect(kubectl.screen()).toMatch(/Run the command again: it starts a new broker/);
    expect(goneMs).toBeLessThan(STOP_MS);
    return { toldMs, goneMs };
  };

  it('`kubecred stop`: kubectl is told the broker stopped, and the broker is gone within 2 s', async () => {
    const journey = new JourneyTranscript('kubecred stop while a browser login waits');
    const started = await start(journey);
    const { cli } = callersFor(() => started.world.home.dir);
    const times = await expectToldAndGone(started, async () => {
      journey.did('kubecred stop');
      const stopped = await cli(['stop']);
      expect(stopped.code, stopped.stderr).toBe(0);
      journey.saw('kubecred stop', stopped.stderr);
    });
    await journey.save('stop-during-login');
    process.stderr.write(
      `journey stop during a login: kubectl told after ${times.toldMs} ms, broker gone after ${times.goneMs} ms\n`,
    );
  });

  it('SIGTERM: the same', async () => {
    const journey = new JourneyTranscript('SIGTERM to the broker while a browser login waits');
    const started = await start(journey);
    const times = await expectToldAndGone(started, async () => {
      journey.did('the session ends: SIGTERM to the broker');
      started.world.broker.process.kill('SIGTERM');
    });
    await journey.save('sigterm-during-login');
    process.stderr.write(
      `journey SIGTERM during a login: kubectl told after ${times.toldMs} ms, broker gone after ${times.goneMs} ms\n`,
    );
  });
});
