import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/main/config/configLoader.js';
import { profileEndpoints } from '../../../src/main/providers/profileEndpoints.js';

function endpointsOf(profileYaml: string, env: Record<string, string> = {}) {
  const loaded = parseConfig(`profiles:\n  - ${profileYaml}\n`, 'config.yaml');
  if (!loaded.ok) throw new Error(loaded.error);
  return profileEndpoints(loaded.config.profiles[0]!, env).map((e) => ({ ...e, url: e.url.href }));
}

describe("the servers outside a profile's credential comes from", () => {
  it("OIDC: the issuer, with the profile's caFile", () => {
    expect(
      endpointsOf('{name: a, provider: oidc, issuer: "https://id.corp/realms/k8s", clientId: k, caFile: /ca.pem}'),
    ).toEqual([{ role: 'issuer', url: 'https://id.corp/realms/k8s', caFile: '/ca.pem', caSetting: 'caFile' }]);
  });

  it("Keystone: authUrl, else the profile's OS_AUTH_URL; none when neither is given (the form asks)", () => {
    expect(endpointsOf('{name: a, provider: keystone, authUrl: "https://ks.corp:5000/v3"}')[0]?.url).toBe(
      'https://ks.corp:5000/v3',
    );
    expect(
      endpointsOf('{name: a, provider: keystone, environment: {OS_AUTH_URL: "https://os.corp:5000"}}')[0]?.url,
    ).toBe('https://os.corp:5000/');
    expect(endpointsOf('{name: a, provider: keystone}')).toEqual([]);
  });

  it("EKS: STS (regional, or stsEndpoint) when the broker calls it; IAM Identity Center's for an sso profile", () => {
    // Plain keys only presign the URL: EKS takes it to STS, the broker reaches nothing.
    expect(endpointsOf('{name: a, provider: eks, clusterId: c, region: eu-central-1}')).toEqual([]);
    const role = 'roleArn: "arn:aws:iam::123456789012:role/admin"';
    expect(endpointsOf(`{name: a, provider: eks, clusterId: c, region: eu-central-1, ${role}}`)).toEqual([
      { role: 'STS', url: 'https://sts.eu-central-1.amazonaws.com/' },
    ]);
    expect(
      endpointsOf(
        '{name: a, provider: eks, clusterId: c, region: cn-north-1, awsProfile: dev, stsEndpoint: "https://vpce.corp/"}',
      ),
    ).toEqual([{ role: 'STS', url: 'https://vpce.corp/' }]);
    expect(
      endpointsOf(
        '{name: a, provider: eks, clusterId: c, region: cn-north-1, mfaSerial: "arn:aws:iam::123456789012:mfa/alice"}',
      ),
    ).toEqual([{ role: 'STS', url: 'https://sts.cn-north-1.amazonaws.com.cn/' }]);
    const sso =
      '{name: a, provider: eks, clusterId: c, region: us-east-1, sso: {startUrl: "https://x.awsapps.com/start", region: eu-west-1, accountId: "123456789012", roleName: r}}';
    expect(endpointsOf(sso).map((e) => e.url)).toEqual(['https://oidc.eu-west-1.amazonaws.com/']);
    expect(endpointsOf(sso, { AWS_ENDPOINT_URL_SSO_OIDC: 'https://sso.local:4443' })[0]?.url).toBe(
      'https://sso.local:4443/',
    );
  });

  it('a wrapped plugin and a static profile reach none; kubecred-proxy reaches the cluster for any', () => {
    expect(endpointsOf('{name: a, provider: exec, command: aws}')).toEqual([]);
    expect(
      endpointsOf(
        '{name: a, provider: static, proxy: {port: 7443, server: "https://api.corp:6443", caFile: /c.pem, tlsServerName: api}}',
      ),
    ).toEqual([
      {
        role: 'cluster',
        url: 'https://api.corp:6443/',
        caFile: '/c.pem',
        caSetting: 'proxy.caFile',
        tlsServerName: 'api',
      },
    ]);
  });
});
