import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { JourneyTranscript } from '../support/journeyTranscript.js';
import { newestKubectl } from '../support/kubectl.js';
import { startOidcKubectlWorld, type OidcKubectlWorld } from '../support/oidcKubectlWorld.js';
import { recordingBrowser, type RecordingBrowser } from '../support/recordingBrowser.js';
import { withoutTerminal } from '../support/terminal.js';

// Short enough that a journey outlives its ID token; the refresh then goes to the issuer.
const ID_TOKEN_SECONDS = 6;
const FIRST_WORD_MS = 5_000;

/**
 * Issue 26, item 5: the person signed in yesterday; today the issuer turns the refresh token
 * down. Issuers say so in more than one way: invalid_grant (revoked), invalid_request (Dex),
 * or not knowing the token at all after a restart with no memory. Whichever, kubectl must not
 * fail on every call with the raw error while the dead refresh token is kept: the broker drops
 * it, opens the browser for a new login, and kubectl's stderr says where to sign in at once.
 * Real kubectl, the native shim, the real issuer (oidc-provider), Chromium signing in.
 */
describe('journey: the issuer refuses the refresh token, kubectl leads to a new login', () => {
  let world: OidcKubectlWorld;
  let browserStandIn: RecordingBrowser;
  const kubectl = newestKubectl();
  const { cli } = callersFor(() => world.home.dir);

  beforeAll(async () => {
    world = await startOidcKubectlWorld({
      profileLines: ['flow: browser', 'scopes: [openid, offline_access]'],
      idTokenTtlSeconds: ID_TOKEN_SECONDS,
      brokerEnv: async (dir) => {
        browserStandIn = await recordingBrowser(dir);
        return { KUBECRED_BROWSER: browserStandIn.command };
      },
    });
  }, 120_000);

  afterAll(async () => {
    await world?.close();
  });

  /** kubectl, no terminal; signs in on the page the broker opened when one opens. */
  const kubectlSigningIn = async (journey: JourneyTranscript) => {
    const before = (await browserStandIn.opened()).length;
    journey.did('kubectl get --raw /version');
    const call = journey.watch(
      'kubectl',
      withoutTerminal(
        [kubectl.path, '--kubeconfig', world.kubeconfig, 'get', '--raw', '/version'],
        brokerEnv(world.home.dir),
      ),
    );
    const told = await call.waitFor(/kubecred: sign in to profile "sso" in your browser/, FIRST_WORD_MS);
    await world.browser.forgetSessions();
    journey.did('signs in on the issuer page the browser opened');
    await world.browser.signIn(await browserStandIn.argument(before));
    const ended = await call.exited;
    expect(ended.code, call.screen()).toBe(0);
    expect(call.screen()).toContain('"gitVersion"');
    return { told, ended, screen: call.screen() };
  };

  const refusals = [
    ['invalid_grant', 'revokes every refresh token', async () => void (await world.issuer.revokeAllRefreshTokens())],
    [
      'invalid_request',
      'answers invalid_request, as Dex does',
      async () => {
        await world.issuer.revokeAllRefreshTokens();
        world.issuer.refuseRefreshTokensWith('invalid_request');
      },
    ],
    ['unknown', 'restarts with no memory of the token', async () => world.issuer.restartWithoutMemory()],
  ] as const;

  for (const [slug, how, refuse] of refusals)
    it(`the issuer ${how}: kubectl says where to sign in at once, and works after the login`, async () => {
      const journey = new JourneyTranscript(`The issuer refuses the refresh token (${slug})`);
      if ((await browserStandIn.opened()).length === 0) await kubectlSigningIn(journey);
      await refuse();
      try {
        journey.did(
          `waits for the ID token to run out (${ID_TOKEN_SECONDS} s); the issuer now refuses the refresh token`,
        );
        await new Promise((resolve) => setTimeout(resolve, (ID_TOKEN_SECONDS + 1) * 1000));
        world.issuer.resetCounts();
        const { told, ended, screen } = await kubectlSigningIn(journey);
        // The refresh was tried once and refused; what followed was a new login, not the raw error.
        expect(world.issuer.counts.grants.refresh_token ?? 0).toBe(0);
        expect(world.issuer.counts.authorizations).toBe(1);
        expect(screen).not.toMatch(/invalid_grant|invalid_request|error_description/);
        journey.did('kubecred status');
        const status = (await cli(['status'])).stdout;
        journey.saw('kubecred status', status);
        expect(status).toMatch(/^sso\s+oidc\s+ready\s/m);
        await journey.save(`refresh-refused-${slug}`);
        process.stderr.write(
          `journey refresh refused (${slug}): kubectl told where to sign in after ${told.afterMs} ms, done after ${ended.afterMs} ms\n`,
        );
      } finally {
        world.issuer.refuseRefreshTokensWith(undefined);
      }
    });
});
