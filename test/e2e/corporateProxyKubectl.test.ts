import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDaemonLog, startTestBroker } from '../support/broker.js';
import { canRunCorporateProxy, startCorporateProxy, type CorporateProxy } from '../support/corporateProxy.js';
import { proxyUrlWith } from '../support/issuerBehindProxy.js';
import { JourneyTranscript } from '../support/journeyTranscript.js';
import { newestKubectl, runKubectl, WHOAMI_ARGS } from '../support/kubectl.js';
import { startProxiedCluster, type ProxiedCluster } from '../support/proxiedCluster.js';
import { expectNoSecretIn, proxyPasswordForms } from '../support/secretAbsence.js';
import { writeShimKubeconfig } from '../support/shimKubeconfig.js';

const API_HOST = 'api.kubecred.test';
const PIN = '271828';
const USER = 'carol';
// The proxy's password (tinyproxy takes letters, digits and -._ only): it goes to the proxy, and nowhere else.
const PASSWORD = 'k8s-egress.pw_91c2';
// What the wrapped plugin hands kubectl: the API server knows it as plugin-user.
const PLUGIN_TOKEN = 'wrapped-plugin-token-5d1e8b';

/**
 * Issue 43: kubectl behind a company's proxy, judged by `kubectl auth whoami` against a real
 * kube-apiserver whose name resolves for the proxy only (tinyproxy with Basic auth and its own
 * /etc/hosts), so nothing reaches it except through the proxy. Two paths: a profile behind
 * kubecred-proxy (the key on the token, kubecred-proxy's upstream through CONNECT) and a
 * wrapped exec plugin that makes its own calls (it gets the broker's proxy settings). The
 * proxy's log says what it tunnelled; the failures name the proxy and the setting to change.
 */
describe.runIf(canRunCorporateProxy())('kubectl through a proxied profile, behind a corporate proxy', () => {
  let cluster: ProxiedCluster;
  let proxy: CorporateProxy;
  let proxied: string;
  let wrappedKubeconfig: string;
  const kubectl = newestKubectl();
  /** Everything kubectl and the CLI printed, to look for the proxy's password in. */
  const printed: string[] = [];
  /** What each kubectl printed, behind which proxy: the closing note quotes it. */
  const transcript = new JourneyTranscript('kubectl behind a corporate proxy (tinyproxy, Basic auth)');

  /** A broker started as the person's session would start it: these proxy settings, the token logged in again. */
  async function brokerWith(env: Record<string, string>): Promise<void> {
    transcript.did(
      `the broker started with ${JSON.stringify(env).split(encodeURIComponent(PASSWORD)).join('<password>')}`,
    );
    await cluster.cli(['stop']);
    await cluster.broker.stop();
    await startTestBroker(cluster.home.dir, {
      SOFTHSM2_CONF: cluster.hsm.conf,
      KUBECONFIG: cluster.kubeconfig,
      ...env,
    });
    const loggedIn = await cluster.cli(['token', 'login', 'hsm'], PIN);
    expect(loggedIn.code, loggedIn.stderr).toBe(0);
    printed.push(loggedIn.stdout, loggedIn.stderr);
  }
  /** kubectl as a developer's shell runs it: the same proxy settings (Go sends loopback direct). */
  async function whoami(env: Record<string, string>) {
    const answer = await cluster.kubectl(kubectl.path, [...WHOAMI_ARGS], env);
    printed.push(answer.stdout, answer.stderr);
    transcript.did(`kubectl auth whoami: exit ${answer.code}`);
    transcript.saw('kubectl', answer.stdout + answer.stderr);
    return answer;
  }

  beforeAll(async () => {
    cluster = await startProxiedCluster({
      users: [{ profile: 'prod', label: 'tls-ec', id: '61', keyType: 'EC:prime256v1', user: USER, group: 'devs' }],
      pin: PIN,
      serverHost: API_HOST,
      apiTokens: [{ token: PLUGIN_TOKEN, user: 'plugin-user' }],
    });
    proxy = await startCorporateProxy({
      dir: path.join(cluster.home.dir, 'proxy'),
      hosts: { [API_HOST]: '127.0.0.1' },
      basicAuth: { user: USER, password: PASSWORD },
    });
    proxied = proxyUrlWith(proxy, USER, PASSWORD);

    // A wrapped plugin that must reach the cluster itself before it answers (as cloud plugins
    // reach their token services): curl, which reads HTTPS_PROXY as the plugin's own environment has it.
    const server = cluster.api.url.replace('127.0.0.1', API_HOST);
    const plugin = path.join(cluster.home.dir, 'reaching-plugin.sh');
    await writeFile(
      plugin,
      [
        '#!/bin/sh',
        `curl -sS --fail --max-time 20 --cacert "${cluster.pki.caCertPath}" "${server}/version" >/dev/null || exit 1`,
        `echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"${PLUGIN_TOKEN}"}}'`,
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    await writeFile(
      path.join(cluster.home.dir, 'config.yaml'),
      `${cluster.configYaml()}  - name: wrapped\n    provider: exec\n    command: ${plugin}\n`,
    );
    wrappedKubeconfig = await writeShimKubeconfig(
      path.join(cluster.home.dir, 'wrapped.kubeconfig'),
      { url: server, caPem: cluster.pki.caPem },
      'wrapped',
      'client.authentication.k8s.io/v1',
    );
  }, 300_000);

  afterAll(async () => {
    await transcript.save('corporate-proxy-kubectl');
    await cluster?.stop();
    await proxy?.stop();
  });

  it('with no proxy set the API server cannot be reached at all (no way around the proxy)', async () => {
    await brokerWith({});
    // Issue 42 F7: before any kubectl, status says kubecred-proxy has not started for the profile.
    const before = await cluster.cli(['status']);
    expect(before.stdout).toContain(
      `prod: through kubecred-proxy on 127.0.0.1:${cluster.ports.get('prod')}, not started yet (the next kubectl starts it)`,
    );
    const direct = await whoami({});
    expect(direct.code).not.toBe(0);
    expect(direct.stderr).toContain(API_HOST);
    expect(direct.stderr).toMatch(/no such host|could not resolve|ENOTFOUND/i);
  }, 120_000);

  it('through the proxy, kubectl is the token key user; the proxy tunnelled to the API server', async () => {
    await brokerWith({ HTTPS_PROXY: proxied });
    const served = await whoami({ HTTPS_PROXY: proxied });
    expect(served.code, served.stderr).toBe(0);
    expect(served.stdout).toBe(USER);
    expect(await proxy.log()).toContain(`CONNECT ${API_HOST}:${new URL(cluster.api.url).port}`);
    const after = await cluster.cli(['status']);
    expect(after.stdout).toContain(`prod: through kubecred-proxy, listening on 127.0.0.1:${cluster.ports.get('prod')}`);
  }, 120_000);

  it('a wrapped plugin gets the broker’s proxy settings and reaches the cluster through them', async () => {
    const before = (await proxy.log()).split(`CONNECT ${API_HOST}`).length;
    const served = await runKubectl(kubectl.path, [...WHOAMI_ARGS], {
      kubeconfig: wrappedKubeconfig,
      env: { ...cluster.env, HTTPS_PROXY: proxied },
    });
    expect(served.code, served.stderr).toBe(0);
    expect(served.stdout).toBe('plugin-user');
    // Two tunnels at least: the plugin's curl (its HTTPS_PROXY came from the broker) and kubectl's own.
    expect((await proxy.log()).split(`CONNECT ${API_HOST}`).length - before).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it('NO_PROXY naming the API server sends kubecred-proxy direct, as Go decides it', async () => {
    await brokerWith({ HTTPS_PROXY: proxied, NO_PROXY: `.kubecred.test` });
    const direct = await whoami({ HTTPS_PROXY: proxied, NO_PROXY: '.kubecred.test' });
    expect(direct.code).not.toBe(0);
    expect(direct.stderr).toMatch(/no such host|could not resolve/i);
    expect(direct.stderr).not.toContain('the proxy');
  }, 120_000);

  it('a wrong proxy password: refused, the proxy named, where to correct it; no password shown', async () => {
    const wrong = `http://${USER}:not-the-password@${new URL(proxy.url).host}`;
    await brokerWith({ HTTPS_PROXY: wrong });
    const refused = await whoami({ HTTPS_PROXY: wrong });
    expect(refused.code).not.toBe(0);
    // tinyproxy answers a wrong password with 401 (407 is for none at all).
    expect(refused.stderr).toMatch(
      new RegExp(
        `the proxy ${proxy.url} \\(from HTTPS_PROXY\\) answered 40[17] .*: it refused the user and password in HTTPS_PROXY`,
      ),
    );
    expect(refused.stderr).toContain('http://user:password@host:port');
    expect(refused.stderr).not.toContain('not-the-password');
  }, 120_000);

  it('a proxy that is down: which one, where it was set, what to check', async () => {
    await brokerWith({ https_proxy: 'http://127.0.0.1:9' });
    const refused = await whoami({ https_proxy: 'http://127.0.0.1:9' });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('cannot reach the proxy http://127.0.0.1:9 (from https_proxy)');
    expect(refused.stderr).toContain('does it run?');
  }, 120_000);

  it('the proxy password is in no output and no log', async () => {
    const daemonLog = await readDaemonLog(cluster.home.dir);
    expect(printed.length).toBeGreaterThan(10);
    expectNoSecretIn([...printed, daemonLog], proxyPasswordForms(PASSWORD));
  });
});
