import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_PREFIX } from '../../src/main/providers/eks/eksToken.js';
import { xmlText } from '../../src/main/providers/eks/stsClient.js';
import { brokerSuccession } from '../support/brokerSuccession.js';
import { callersFor } from '../support/callers.js';
import { startEksRoleWorld, type EksRoleWorld } from '../support/eksRoleWorld.js';
import { startInspectedMachine, type InspectedMachine } from '../support/inspectedMachine.js';
import { decryptedFlow, expectRootRefused, inspectingProxyCasesRun } from '../support/inspectingProxy.js';
import { recordedWhoami } from '../support/recordedWhoami.js';
import { assertBuilt } from '../support/repo.js';
import { expectNoSecretIn, PrintedTexts } from '../support/secretAbsence.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const STS_HOST = 'sts.kubecred.test';
const ROLE = 'arn:aws:iam::123456789012:role/deployer';

/**
 * Issue 43: an eks profile that assumes a role, behind a proxy that inspects TLS (mitmproxy),
 * whose root the company installed in the OS trust store only. STS (moto behind TLS, as STS
 * is) has a name that resolves for the proxy only, so the broker's AssumeRole reaches it
 * through the proxy or not at all, and must then trust the certificate the proxy makes for it
 * from the OS bundle (in a mount namespace of the broker's own; no SSL_CERT_FILE, no
 * NODE_EXTRA_CA_CERTS). Judged by `kubectl auth whoami` against a real kube-apiserver whose
 * token webhook names the role of the session moto handed out, by moto's count, and by
 * mitmproxy's log of the POST it decrypted.
 */
describe.runIf(inspectingProxyCasesRun())(
  'EKS (STS AssumeRole) behind a TLS-inspecting proxy (mitmproxy), its root in the OS store only',
  () => {
    let home: TempHome;
    let world: EksRoleWorld;
    let inspected: InspectedMachine;
    const brokers = brokerSuccession(() => home.dir);
    /** Everything kubectl printed, to look for secrets in. */
    const printed = new PrintedTexts();
    const { cli } = callersFor(() => home.dir);

    /** The broker as the person's session starts it: their AWS files, `proxy`, the OS store with the proxy's root or not. */
    const nextBroker = (options: { proxy: string | undefined; rootInOsStore: boolean }) =>
      brokers.next(() => inspected.startBroker(home.dir, { ...options, env: world.awsEnv }));
    const whoami = recordedWhoami(printed, () => ({ home: home.dir, kubeconfig: world.kubeconfig }));

    beforeAll(async () => {
      assertBuilt({ shim: true });
      home = await makeTempHome();
      world = await startEksRoleWorld(home.dir, { stsHost: STS_HOST, role: ROLE });
      inspected = await startInspectedMachine(home.dir, {
        hosts: [STS_HOST],
        // The proxy trusts STS's CA, as a company's proxy trusts the public roots; the broker never sees it.
        upstreamCaFiles: [world.pki.caCertPath],
      });
    }, 300_000);

    afterAll(async () => {
      await brokers.stop();
      await cli(['stop']);
      await inspected?.stop();
      await world?.stop();
      await home?.cleanup();
    });

    it('without the proxy STS cannot be reached: nothing passes by going around it', async () => {
      await nextBroker({ proxy: undefined, rootInOsStore: true });
      const direct = await whoami();
      expect(direct.code).not.toBe(0);
      expect(direct.stderr).toContain('ENOTFOUND: the host name does not resolve, direct (no HTTPS_PROXY set)');
      expect(world.moto.count('AssumeRole')).toBe(0);
    }, 120_000);

    it("a broker whose OS store lacks the proxy's root: refused, the proxy and the root named; nothing decrypted", async () => {
      await nextBroker({ proxy: inspected.proxy.url, rootInOsStore: false });
      const refused = await whoami();
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(`through the proxy ${inspected.proxy.url} (from HTTPS_PROXY)`);
      expect(refused.stderr).toContain('TLS-inspecting proxy re-signs the sites it passes with its own root');
      expect(world.moto.count('AssumeRole')).toBe(0);
      // The proxy's side: the broker turned its certificate down, and nothing was decrypted.
      await expectRootRefused(inspected.proxy, STS_HOST);
    }, 120_000);

    it('with the root in the OS store: the proxy reads the AssumeRole, and kubectl is the role', async () => {
      await nextBroker({ proxy: inspected.proxy.url, rootInOsStore: true });
      const served = await whoami();
      expect(served.code, served.stderr).toBe(0);
      expect(served.stdout).toBe('arn:aws:sts::123456789012:assumed-role/deployer/alice');
      expect(world.moto.count('AssumeRole')).toBe(1);
      // mitmproxy decrypted the broker's POST to STS and passed moto's answer back.
      const log = await inspected.proxy.log();
      expect(log).toMatch(decryptedFlow('POST', `https://${STS_HOST}:${world.stsPort}/`));
      expect(log).toMatch(/<< 200 OK/);
    }, 120_000);

    it("no secret in any output or log of the broker: alice's secret key, the role's keys, the EKS token", async () => {
      const credentials = await readFile(path.join(home.dir, 'aws-credentials'), 'utf8');
      const aliceSecret = /aws_secret_access_key = (\S+)/.exec(credentials)?.[1];
      const assumed =
        world.moto.calls.find((call) => call.action === 'AssumeRole' && call.status === 200)?.answer ?? '';
      const secrets = [aliceSecret, xmlText(assumed, 'SecretAccessKey'), xmlText(assumed, 'SessionToken')];
      expect(secrets.every(Boolean), 'the secrets to look for').toBe(true);
      const logs = await brokers.logs();
      expect(logs).toContain('broker listening');
      expectNoSecretIn([...printed.all, logs], [...secrets.filter((secret) => secret !== undefined), TOKEN_PREFIX]);
    });
  },
);
