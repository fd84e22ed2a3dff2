import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubeloginSwitch, kubeloginUse } from '../../../src/main/kubeconfig/kubeloginUse.js';

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

  it('offers the whole switch: issuer, client, the CA file (from the kubeconfig dir) and every extra scope', () => {
    const offer = kubeloginSwitch({ args: FLAGS, viaKubectl: true }, 'lab-sso', '/home/ann/.kube');
    expect(offer?.command).toBe(
      `kubecred profile add lab-sso-oidc --provider oidc --issuer https://id.example.com --client-id kubernetes --ca-file ${path.resolve('/home/ann/.kube/certs/corp-ca.pem')} --scope openid --scope offline_access --scope email --scope groups --scope profile, then kubecred install --profile lab-sso-oidc --context <context>`,
    );
  });

  it('says to store a confidential client secret (never its value), and offers nothing without an issuer', () => {
    const confidential = {
      args: ['get-token', '--oidc-issuer-url=https://i', '--oidc-client-id=c', '--oidc-client-secret=s3cr3t'],
      viaKubectl: false,
    };
    const offer = kubeloginSwitch(confidential, 'p', '/');
    expect(offer?.command).toMatch(/then kubecred secret set p-oidc client-secret, then kubecred install/);
    expect(JSON.stringify(offer)).not.toContain('s3cr3t');
    expect(kubeloginSwitch({ args: ['get-token', '--oidc-client-id=c'], viaKubectl: false }, 'p', '/')).toBeUndefined();
  });
});
