import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/main/config/configLoader.js';
import {
  networkRouteCheck,
  networkTargets,
  type NetworkTarget,
} from '../../../src/main/doctor/checks/networkRouteCheck.js';
import type { TlsReach } from '../../../src/main/doctor/probes/tlsReach.js';
import { proxySettings } from '../../../src/main/platform/proxyEnvironment.js';

const PASSWORD = 'pr0xy-s3cret';
const CONFIG = [
  'profiles:',
  '  - {name: dev, provider: oidc, issuer: "https://id.corp", clientId: k, caFile: /corp-ca.pem}',
  '  - {name: prod, provider: oidc, issuer: "https://id.corp", clientId: k, caFile: /corp-ca.pem}',
  '  - {name: lab, provider: oidc, issuer: "https://id.lab.internal", clientId: k}',
  '  - {name: aws, provider: eks, clusterId: c, region: eu-west-1, awsProfile: dev}',
  '  - {name: local, provider: eks, clusterId: c, region: eu-west-1, awsProfile: dev, stsEndpoint: "http://127.0.0.1:5000"}',
  '  - {name: wrap, provider: exec, command: gke-gcloud-auth-plugin}',
  '',
].join('\n');

function targets(env: Record<string, string>) {
  const loaded = parseConfig(CONFIG, 'config.yaml');
  if (!loaded.ok) throw new Error(loaded.error);
  return networkTargets(loaded.config, proxySettings(env), env);
}

const ENV = { HTTPS_PROXY: `http://bob:${PASSWORD}@proxy.corp:3128`, NO_PROXY: '.internal' };

async function findingsWhen(reach: (target: NetworkTarget) => TlsReach) {
  const { targets: all, plugins } = targets(ENV);
  return networkRouteCheck(all, plugins, 'HTTPS_PROXY=http://proxy.corp:3128', async (t) => reach(t)).run();
}

describe("doctor's network check: each profile's servers through the proxy a login would use", () => {
  it('tries each server once for all the profiles that use it, routed by the proxy settings', () => {
    const { targets: all, plugins } = targets(ENV);
    expect(all.map((t) => [t.role, t.url.host, t.profiles.join(','), t.routeWords])).toEqual([
      ['issuer', 'id.corp', 'dev,prod', 'through the proxy http://proxy.corp:3128 (from HTTPS_PROXY)'],
      ['issuer', 'id.lab.internal', 'lab', 'direct (NO_PROXY matches .internal)'],
      ['STS', 'sts.eu-west-1.amazonaws.com', 'aws', 'through the proxy http://proxy.corp:3128 (from HTTPS_PROXY)'],
      ['STS', '127.0.0.1:5000', 'local', 'direct (no HTTP_PROXY set)'],
    ]);
    // The route carries the proxy's credentials (the tunnel sends them); the words never do.
    expect(all[0]?.route?.proxy.password).toBe(PASSWORD);
    expect(JSON.stringify(all.map((t) => t.routeWords))).not.toContain(PASSWORD);
    expect(plugins).toEqual(['wrap']);
  });

  it('says the TLS was verified and who signed, through which proxy; plain http is not tried', async () => {
    const tried: string[] = [];
    const findings = await findingsWhen((t) => (tried.push(t.url.host), { kind: 'verified', signedBy: 'Corp CA' }));
    expect(tried).not.toContain('127.0.0.1:5000');
    expect(findings[0]).toEqual({
      status: 'ok',
      title: 'issuer id.corp (dev, prod)',
      detail:
        'through the proxy http://proxy.corp:3128 (from HTTPS_PROXY): TLS verified, its certificate signed by Corp CA',
    });
    expect(findings.find((f) => f.title.includes('127.0.0.1:5000'))?.detail).toBe(
      'direct (no HTTP_PROXY set); plain http, not tried (only https endpoints are)',
    );
    expect(findings.at(-1)).toMatchObject({ status: 'ok', title: 'plugin (wrap)' });
    expect(findings.at(-1)?.detail).toContain('proxy variables: HTTPS_PROXY=http://proxy.corp:3128');
  });

  it("fails with the proxy's own words when it refuses, and its setting to change", async () => {
    const findings = await findingsWhen(() => ({
      kind: 'proxy',
      message: 'the proxy http://proxy.corp:3128 (from HTTPS_PROXY) answered 403 Forbidden to CONNECT id.corp:443',
      hint: 'ask whoever runs the proxy to allow id.corp:443',
    }));
    expect(findings[0]).toMatchObject({
      status: 'fail',
      detail: 'the proxy http://proxy.corp:3128 (from HTTPS_PROXY) answered 403 Forbidden to CONNECT id.corp:443',
      fix: 'ask whoever runs the proxy to allow id.corp:443',
    });
  });

  it('an unknown root through a proxy points at a TLS-inspecting proxy; direct, at the CA that signed it', async () => {
    const findings = await findingsWhen(() => ({
      kind: 'untrusted',
      code: 'SELF_SIGNED_CERT_IN_CHAIN',
      signedBy: 'mitmproxy',
    }));
    expect(findings[0]).toMatchObject({
      status: 'fail',
      detail:
        'through the proxy http://proxy.corp:3128 (from HTTPS_PROXY): its certificate (signed by mitmproxy) chains to no root this machine trusts (SELF_SIGNED_CERT_IN_CHAIN)',
      fix: 'a TLS-inspecting proxy may be re-signing this connection: put its root CA in the OS trust store (as kubectl and the browser use it), or the caFile of dev, prod',
    });
    const direct = findings.find((f) => f.title.startsWith('issuer id.lab.internal'));
    expect(direct?.fix).toBe(
      'put the CA that signed it in the OS trust store (as kubectl and the browser use it), or the caFile of lab',
    );
    // STS has no caFile setting: only the OS store can add a root for it.
    expect(findings.find((f) => f.title.startsWith('STS sts.'))?.fix).toBe(
      'a TLS-inspecting proxy may be re-signing this connection: put its root CA in the OS trust store (as kubectl and the browser use it)',
    );
  });

  it('an unreachable server is a warning; going direct, it suggests the proxy variables', async () => {
    const findings = await findingsWhen(() => ({
      kind: 'failed',
      message: 'ENOTFOUND (the host name does not resolve)',
    }));
    const direct = findings.find((f) => f.title.startsWith('issuer id.lab.internal'));
    expect(direct).toMatchObject({
      status: 'warn',
      detail: 'direct (NO_PROXY matches .internal): ENOTFOUND (the host name does not resolve)',
    });
    expect(direct?.fix).toContain('set HTTPS_PROXY (and NO_PROXY for what goes direct)');
    expect(findings[0]?.fix).toBe('check that the proxy lets id.corp through, and the issuer URL in config.yaml');
  });

  it('with no profile reaching out, says so', async () => {
    expect(await networkRouteCheck([], [], 'none', async () => ({ kind: 'failed', message: '' })).run()).toEqual([
      { status: 'ok', title: 'network', detail: 'no profile reaches a server outside this machine' },
    ]);
  });
});
