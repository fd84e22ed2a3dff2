import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubeloginOidc, kubeloginUse } from '../../../src/main/kubeconfig/kubeloginUse.js';

const FLAGS = [
  'get-token',
  '--oidc-issuer-url=https://id.example.com',
  '--oidc-client-id',
  'kubernetes',
  '--oidc-extra-scope=email',
  '--oidc-extra-scope',
  'groups,profile',
  '--certificate-authority=certs/corp-ca.pem',
];

describe('kubelogin in a kubeconfig (issue 26, N5)', () => {
  it('is recognised in each documented form, kubectl oidc-login included', () => {
    expect(kubeloginUse('kubelogin', FLAGS)).toEqual({ args: FLAGS, viaKubectl: false });
    expect(kubeloginUse('/usr/local/bin/kubectl-oidc_login', FLAGS)).toEqual({ args: FLAGS, viaKubectl: false });
    expect(kubeloginUse('kubectl', ['oidc-login', ...FLAGS])).toEqual({ args: FLAGS, viaKubectl: true });
    expect(kubeloginUse('C:\\tools\\kubectl.exe'.replace(/\\/g, '/'), ['oidc-login', ...FLAGS])?.viaKubectl).toBe(true);
    expect(kubeloginUse('kubectl', ['get', 'pods'])).toBeUndefined();
    expect(kubeloginUse('gke-gcloud-auth-plugin', [])).toBeUndefined();
  });

  it('reads the whole login: issuer, client, the CA file (from the kubeconfig dir) and every extra scope', () => {
    expect(kubeloginOidc({ args: FLAGS, viaKubectl: true }, '/home/ann/.kube')).toEqual({
      issuer: 'https://id.example.com',
      clientId: 'kubernetes',
      caFile: path.resolve('/home/ann/.kube/certs/corp-ca.pem'),
      scopes: ['openid', 'offline_access', 'email', 'groups', 'profile'],
    });
  });

  it('keeps a confidential client secret for the secret store, and reads nothing without an issuer', () => {
    const confidential = {
      args: ['get-token', '--oidc-issuer-url=https://i', '--oidc-client-id=c', '--oidc-client-secret=s3cr3t'],
      viaKubectl: false,
    };
    expect(kubeloginOidc(confidential, '/')).toEqual({ issuer: 'https://i', clientId: 'c', clientSecret: 's3cr3t' });
    expect(kubeloginOidc({ args: ['get-token', '--oidc-client-id=c'], viaKubectl: false }, '/')).toBeUndefined();
  });
});
