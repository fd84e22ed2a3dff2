import { describe, expect, it } from 'vitest';
import { clusterServers, profileFacts } from '../../../src/renderer/profileFacts.js';

const labelled = (provider: string, config: Record<string, unknown>) =>
  Object.fromEntries(profileFacts(provider, config).map((fact) => [fact.label, fact.value]));

// New-user round 3, N13 and screens 12-15: a profile's page hid the plugin's command, the role,
// the issuer and the exec proxy. They come from config.yaml, which holds no secret.
describe("a profile's page names what config.yaml says it does", () => {
  it('the command a plugin runs, with its arguments', () => {
    expect(
      labelled('exec', { command: 'gke-gcloud-auth-plugin', args: ['--use_application_default_credentials'] }),
    ).toMatchObject({
      Command: 'gke-gcloud-auth-plugin --use_application_default_credentials',
      Approval: 'never asks',
    });
  });

  it('the cluster, role and AWS profile of an EKS profile; the issuer of an OIDC one', () => {
    expect(
      labelled('eks', {
        clusterId: 'prod',
        region: 'eu-west-1',
        roleArn: 'arn:aws:iam::123456789012:role/admin',
        awsProfile: 'team',
        approval: 'always',
      }),
    ).toEqual({
      Cluster: 'prod in eu-west-1',
      Role: 'arn:aws:iam::123456789012:role/admin',
      'AWS profile': 'team',
      Approval: 'asks every time',
    });
    expect(labelled('oidc', { issuer: 'https://id.example.com', clientId: 'kubectl' })).toMatchObject({
      Issuer: 'https://id.example.com',
      'Client ID': 'kubectl',
    });
  });

  it("the exec proxy's local port and upstream, and the key's place on the token", () => {
    expect(
      labelled('static', {
        tokenCertificate: { token: 'yubikey', label: 'piv-auth' },
        proxy: { port: 47011, server: 'https://10.0.0.1:6443', tlsVersion: '1.2' },
        approval: 'once-per-process',
      }),
    ).toEqual({
      'Exec proxy': 'kubectl → https://127.0.0.1:47011 → https://10.0.0.1:6443 (TLS 1.2)',
      'Key on token': 'yubikey, object "piv-auth"',
      Approval: 'asks once per program',
    });
  });

  it('leaves out what is not set, and takes odd values without throwing', () => {
    expect(labelled('static', {})).toEqual({ Approval: 'never asks' });
    expect(labelled('exec', { command: 7, args: 'not a list', proxy: 'x', tokenCertificate: null })).toEqual({
      Command: '7',
      Approval: 'never asks',
    });
  });
});

// Round 4, N20: a proxied profile's contexts name the local listener; its page named that the cluster.
describe('clusterServers', () => {
  const proxied = { proxy: { port: 35749, server: 'https://k8s.example.test:6443' } };

  it('shows the cluster behind the exec proxy where a context names its listener', () => {
    expect(clusterServers(['https://127.0.0.1:35749'], proxied)).toEqual(['https://k8s.example.test:6443']);
    expect(clusterServers(['https://127.0.0.1:35749', 'https://k8s.example.test:6443'], proxied)).toEqual([
      'https://k8s.example.test:6443',
    ]);
  });

  it('keeps any other server, and every server of a profile without the proxy', () => {
    expect(clusterServers(['https://127.0.0.1:6443'], proxied)).toEqual(['https://127.0.0.1:6443']);
    expect(clusterServers(['https://127.0.0.1:35749'], {})).toEqual(['https://127.0.0.1:35749']);
    expect(clusterServers(['https://127.0.0.1:35749'], null)).toEqual(['https://127.0.0.1:35749']);
  });
});
