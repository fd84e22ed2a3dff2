import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, type TestBroker } from '../support/broker.js';
import { canRunCorporateProxy, startCorporateProxy, type CorporateProxy } from '../support/corporateProxy.js';
import { canRunInspectingProxy, startInspectingProxy, type InspectingProxy } from '../support/inspectingProxy.js';
import { JourneyTranscript } from '../support/journeyTranscript.js';
import { newestKubectl, WHOAMI_ARGS } from '../support/kubectl.js';
import { startProxiedCluster, type ProxiedCluster } from '../support/proxiedCluster.js';

const API_HOST = 'api.kubecred.test';
const PIN = '271828';
const USER = 'dana';
// The proxy's password (tinyproxy takes letters, digits and -._ only): kept in the keychain, it
// goes to the proxy over kubecred-proxy's control channel and tunnel, and nowhere else.
const PASSWORD = 'profile-egress.pw_4e7a';
const PROXY_VARIABLES = /^(HTTPS?_PROXY|https?_proxy|ALL_PROXY|all_proxy|NO_PROXY|no_proxy)=/m;

/**
 * Issue 43: a profile whose cluster sits behind a proxy of its own (config.yaml's proxyUrl, as
 * kubeconfig's proxy-url), with no proxy in the broker's environment at all: kubecred-proxy's
 * upstream goes through that proxy alone, with the password the profile's keychain keeps for a
 * URL that names only its user. Judged by `kubectl auth whoami` against a real kube-apiserver
 * whose name resolves for the proxies only, so nothing reaches it around them; then behind a
 * TLS-inspecting proxy (mitmproxy), which must pass the cluster's mTLS connection uninspected.
 */
describe.runIf(canRunCorporateProxy())("kubectl through a profile's own proxy (proxyUrl)", () => {
  let cluster: ProxiedCluster;
  let proxy: CorporateProxy;
  /** The brokers started after the cluster's own, whose logs are read too. */
  const brokers: TestBroker[] = [];
  const kubectl = newestKubectl();
  /** Everything kubectl and the CLI printed, to look for the proxy's password in. */
  const printed: string[] = [];
  const transcript = new JourneyTranscript("kubectl through a profile's own proxy (proxyUrl, tinyproxy, mitmproxy)");

  /** config.yaml with the profile behind `proxyUrl` (none: straight to the cluster). */
  async function profileBehind(proxyUrl: string | undefined): Promise<void> {
    const line = proxyUrl ? `    proxyUrl: "${proxyUrl}"\n` : '';
    await writeFile(
      path.join(cluster.home.dir, 'config.yaml'),
      cluster.configYaml().replace('  - name: prod\n', `  - name: prod\n${line}`),
    );
    transcript.did(`config.yaml: profile prod ${proxyUrl ? `with proxyUrl ${proxyUrl}` : 'without proxyUrl'}`);
  }
  async function whoami() {
    // kubectl as the person runs it, with no proxy either: it talks to kubecred-proxy on loopback.
    const answer = await cluster.kubectl(kubectl.path, [...WHOAMI_ARGS]);
    printed.push(answer.stdout, answer.stderr);
    transcript.did(`kubectl auth whoami: exit ${answer.code}`);
    transcript.saw('kubectl', answer.stdout + answer.stderr);
    return answer;
  }
  async function keepPassword(password: string) {
    const kept = await cluster.cli(['secret', 'set', 'prod', 'proxy-password'], password);
    printed.push(kept.stdout, kept.stderr);
    expect(kept.code, kept.stderr).toBe(0);
    transcript.did('kubecred secret set prod proxy-password (the password on stdin)');
  }
  /** The broker started again as the person's session would start it, with `env`; the token logged in again. */
  async function restartBroker(env: Record<string, string>): Promise<void> {
    await cluster.cli(['stop']);
    await cluster.broker.stop();
    brokers.push(
      await startTestBroker(cluster.home.dir, {
        SOFTHSM2_CONF: cluster.hsm.conf,
        KUBECONFIG: cluster.kubeconfig,
        ...env,
      }),
    );
    transcript.did(`the broker started again with ${JSON.stringify(env)}`);
    const loggedIn = await cluster.cli(['token', 'login', 'hsm'], PIN);
    expect(loggedIn.code, loggedIn.stderr).toBe(0);
  }
  /** kubecred-proxy's pid, as `kubecred proxy status` tells it. */
  async function proxyPid(): Promise<number> {
    const status = await cluster.cli(['proxy', 'status', '-o', 'json']);
    expect(status.code, status.stderr).toBe(0);
    return (JSON.parse(status.stdout) as { pid: number }).pid;
  }

  beforeAll(async () => {
    cluster = await startProxiedCluster({
      users: [{ profile: 'prod', label: 'tls-ec', id: '62', keyType: 'EC:prime256v1', user: USER, group: 'devs' }],
      pin: PIN,
      serverHost: API_HOST,
    });
    proxy = await startCorporateProxy({
      dir: path.join(cluster.home.dir, 'proxy'),
      hosts: { [API_HOST]: '127.0.0.1' },
      basicAuth: { user: USER, password: PASSWORD },
    });
  }, 300_000);

  afterAll(async () => {
    await transcript.save('corporate-proxy-profile-kubectl');
    for (const broker of brokers) await broker.stop();
    await cluster?.stop();
    await proxy?.stop();
  });

  it('the broker has no proxy in its environment, and without proxyUrl the API server cannot be reached', async () => {
    const environ = await readFile(`/proc/${cluster.broker.process.pid}/environ`, 'utf8');
    expect(environ.split('\0').join('\n')).not.toMatch(PROXY_VARIABLES);
    await profileBehind(undefined);
    const direct = await whoami();
    expect(direct.code).not.toBe(0);
    expect(direct.stderr).toContain(API_HOST);
    expect(direct.stderr).toMatch(/no such host|could not resolve/i);
  }, 120_000);

  it('a proxyUrl naming its user and no password kept: the proxy, the setting, and the command that keeps it', async () => {
    await profileBehind(`http://${USER}@${new URL(proxy.url).host}`);
    const refused = await whoami();
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(
      new RegExp(
        `the proxy ${escaped(proxy.url)} \\(from proxyUrl of profile "prod"\\) answered 40[17] .*: it wants the password of the user in proxyUrl of profile "prod"`,
      ),
    );
    expect(refused.stderr).toContain(
      "keep the proxy's password in the keychain: kubecred secret set prod proxy-password",
    );
  }, 120_000);

  it('with the password kept, kubectl is the token key user through the profile’s proxy alone', async () => {
    const tunnelsBefore = (await proxy.log()).split(`CONNECT ${API_HOST}`).length;
    await keepPassword(PASSWORD);
    const served = await whoami();
    expect(served.code, served.stderr).toBe(0);
    expect(served.stdout).toBe(USER);
    expect((await proxy.log()).split(`CONNECT ${API_HOST}`).length).toBeGreaterThan(tunnelsBefore);

    // The password went over the control channel: not on kubecred-proxy's command line or in its environment.
    const pid = await proxyPid();
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8');
    const environ = await readFile(`/proc/${pid}/environ`, 'utf8');
    transcript.did(`kubecred-proxy pid ${pid}: read its /proc cmdline and environ`);
    for (const text of [cmdline, environ]) expect(text).not.toContain(PASSWORD);
    expect(environ.split('\0').join('\n')).not.toMatch(PROXY_VARIABLES);
  }, 120_000);

  it('a wrong password kept: refused, said so, and where to keep the right one; no password shown', async () => {
    await keepPassword('not-the-proxy-password');
    const refused = await whoami();
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('it refused the user in proxyUrl of profile "prod" with the password kept for it');
    expect(refused.stderr).toContain('kubecred secret set prod proxy-password');
    expect(refused.stderr).not.toContain('not-the-proxy-password');
    await keepPassword(PASSWORD);
    const again = await whoami();
    expect(again.code, again.stderr).toBe(0);
  }, 120_000);

  it("no proxyUrl, the session's HTTPS_PROXY naming the user only: the password kept for the profile goes with it", async () => {
    const userOnly = `http://${USER}@${new URL(proxy.url).host}`;
    await restartBroker({ HTTPS_PROXY: userOnly });
    await profileBehind(undefined);
    const tunnelsBefore = (await proxy.log()).split(`CONNECT ${API_HOST}`).length;
    const served = await whoami();
    expect(served.code, served.stderr).toBe(0);
    expect(served.stdout).toBe(USER);
    expect((await proxy.log()).split(`CONNECT ${API_HOST}`).length).toBeGreaterThan(tunnelsBefore);
    const environ = await readFile(`/proc/${await proxyPid()}/environ`, 'utf8');
    expect(environ.split('\0')).toContain(`HTTPS_PROXY=${userOnly}`);
    expect(environ).not.toContain(PASSWORD);
    await restartBroker({});
    await profileBehind(userOnly);
  }, 120_000);

  it('the proxy password is in no output, no log, and not in config.yaml', async () => {
    // The broker this test started logs to its output; one a CLI call started, to state/daemon.log.
    const daemonLog =
      [cluster.broker, ...brokers].map((broker) => broker.output()).join('') +
      (await readFile(path.join(cluster.home.dir, 'state', 'daemon.log'), 'utf8').catch(() => ''));
    const configYaml = await readFile(path.join(cluster.home.dir, 'config.yaml'), 'utf8');
    // The log that was read is the one that saw the tunnels: every signature for them is in it.
    expect(daemonLog).toContain('token signature for the exec proxy');
    expect(configYaml).toContain(`proxyUrl: "http://${USER}@`);
    expect(printed.length).toBeGreaterThan(8);
    for (const text of [...printed, daemonLog, configYaml]) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(encodeURIComponent(PASSWORD));
    }
  });

  describe.runIf(canRunInspectingProxy())('behind a TLS-inspecting proxy (mitmproxy)', () => {
    let passing: InspectingProxy;
    let inspecting: InspectingProxy;

    beforeAll(async () => {
      const upstream = { hosts: { [API_HOST]: '127.0.0.1' }, upstreamCaFiles: [cluster.pki.caCertPath] };
      [passing, inspecting] = await Promise.all([
        startInspectingProxy({
          ...upstream,
          dir: path.join(cluster.home.dir, 'mitm-passing'),
          passUninspected: [API_HOST],
        }),
        startInspectingProxy({ ...upstream, dir: path.join(cluster.home.dir, 'mitm-inspecting') }),
      ]);
    }, 120_000);

    afterAll(async () => {
      await passing?.stop();
      await inspecting?.stop();
    });

    it("passes: the cluster's mTLS connection goes through the proxy uninspected", async () => {
      await profileBehind(passing.url);
      const served = await whoami();
      expect(served.code, served.stderr).toBe(0);
      expect(served.stdout).toBe(USER);
      // The proxy read nothing inside: no flow of the API server's in its log.
      const log = await passing.log();
      transcript.saw('mitmproxy passing the API server', log);
      expect(log).toContain(`server connect ${API_HOST}:`);
      expect(log).not.toContain(`https://${API_HOST}`);
    }, 120_000);

    it('inspects: kubectl is told a TLS-inspecting proxy may be re-signing, which the cluster’s connection must pass uninspected', async () => {
      await profileBehind(inspecting.url);
      const refused = await whoami();
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(`kubecred-proxy does not trust the certificate of https://${API_HOST}:`);
      expect(refused.stderr).toContain(
        `through the proxy ${inspecting.url} (from proxyUrl of profile "prod"), ${API_HOST} showed a certificate signed by a root this profile does not trust`,
      );
      expect(refused.stderr).toContain('a TLS-inspecting proxy may be re-signing it');
      expect(refused.stderr).toContain(
        "the cluster's connection (mTLS to the API server) must pass the proxy uninspected",
      );
      expect(refused.stderr).toContain(`ask whoever runs the proxy to pass ${API_HOST} uninspected`);
      // The proxy's side: kubecred-proxy turned its certificate down.
      const log = await inspecting.log();
      expect(
        log.split('\n').some((line) => line.includes('Client TLS handshake failed') && line.includes(API_HOST)),
        log,
      ).toBe(true);
    }, 120_000);
  });
});

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
