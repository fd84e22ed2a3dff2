import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/main/config/configLoader.js';
import { kubeconfigExposureCheck } from '../../../src/main/doctor/checks/kubeconfigExposureCheck.js';
import { kubeconfigProfilesCheck } from '../../../src/main/doctor/checks/kubeconfigProfilesCheck.js';
import { kubectlVersionCheck, unsupportedReason } from '../../../src/main/doctor/checks/kubectlVersionCheck.js';
import {
  parseKubeconfigUsers,
  readKubeconfigs,
  type KubeconfigReading,
} from '../../../src/main/kubeconfig/kubeconfigUsers.js';
import type { KubecredConfig } from '../../../src/shared/config/schema.js';

const SECRET = 'sekrit-token-value-123';
const V1 = 'client.authentication.k8s.io/v1';

function kubeconfig(users: string): string {
  return `apiVersion: v1\nkind: Config\nusers:\n${users}`;
}
const kubecredUser = (name: string, profile: string, apiVersion = V1, command = '/opt/kubecred/kubecred-shim') =>
  `  - name: ${name}\n    user:\n      exec:\n        apiVersion: ${apiVersion}\n        command: ${command}\n        args: [credential, ${profile}]\n`;
const tokenUser = (name: string) => `  - name: ${name}\n    user:\n      token: ${SECRET}\n      client-key-data: ""\n`;

async function files(entries: Record<string, { text: string; mode?: number }>): Promise<KubeconfigReading[]> {
  return readKubeconfigs(Object.keys(entries), {
    read: async (file) => entries[file] && { text: entries[file].text, mode: entries[file].mode ?? 0o100600 },
  });
}

function config(yaml: string): KubecredConfig {
  const loaded = parseConfig(yaml, 'config.yaml');
  if (!loaded.ok) throw new Error(loaded.error);
  return loaded.config;
}
const CONFIG = config('profiles:\n  - {name: dev, provider: static}\n');

describe('reading kubeconfig users', () => {
  it('keeps the exec block and the names of plaintext fields, never their values', () => {
    const parsed = parseKubeconfigUsers(kubeconfig(kubecredUser('a', 'dev') + tokenUser('b')));
    expect(JSON.stringify(parsed)).not.toContain(SECRET);
    expect(parsed).toEqual({
      users: [
        { name: 'a', exec: expect.objectContaining({ args: ['credential', 'dev'] }), plaintextFields: [] },
        { name: 'b', plaintextFields: ['token'] },
      ],
      contexts: [],
      clusters: [],
    });
  });

  it('counts an auth-provider holding OIDC tokens as plaintext', () => {
    const parsed = parseKubeconfigUsers(
      kubeconfig(
        `  - name: old\n    user:\n      auth-provider: {name: oidc, config: {idp-issuer-url: "https://x", refresh-token: ${SECRET}}}\n`,
      ),
    );
    expect(parsed).toEqual({
      users: [{ name: 'old', plaintextFields: ['auth-provider'] }],
      contexts: [],
      clusters: [],
    });
  });

  it('reports broken YAML by line, without quoting it', () => {
    const parsed = parseKubeconfigUsers(`users:\n  - name: a\n    user: {token: ${SECRET}\n`);
    expect('error' in parsed && parsed.error).toMatch(/line \d/);
    expect(JSON.stringify(parsed)).not.toContain(SECRET);
  });

  it('tells a missing file from one it read', async () => {
    expect((await files({ '/k/a': { text: kubeconfig('') } })).map((f) => f.state)).toEqual(['read']);
    expect((await readKubeconfigs(['/k/none'], { read: async () => undefined }))[0]).toEqual({
      file: '/k/none',
      state: 'missing',
    });
  });
});

describe('kubeconfig profiles check', () => {
  const check = async (entries: Record<string, { text: string }>, cfg: KubecredConfig | undefined, exists = true) =>
    kubeconfigProfilesCheck({ files: await files(entries), config: cfg, exists: async () => exists }).run();

  it('fails a user that asks for a profile config.yaml lacks, naming user, file and profile', async () => {
    const [finding] = await check({ '/k/config': { text: kubeconfig(kubecredUser('prod-admin', 'prod')) } }, CONFIG);
    expect(finding).toMatchObject({ status: 'fail', title: 'user "prod-admin" in /k/config' });
    expect(finding?.detail).toContain('profile "prod"');
    expect(finding?.fix).toContain('kubecred profile add prod');
  });

  it('is ok when every Kubecred user has its profile; other plugins are none of its business', async () => {
    const other =
      '  - name: gke\n    user:\n      exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: gke-gcloud-auth-plugin}\n';
    const findings = await check({ '/k/config': { text: kubeconfig(kubecredUser('dev', 'dev') + other) } }, CONFIG);
    expect(findings).toEqual([
      expect.objectContaining({ status: 'ok', detail: '1 user call Kubecred, each with a profile that exists' }),
    ]);
  });

  it('fails an exec command path that is gone, and a kubeconfig kubectl cannot parse', async () => {
    const gone = await check({ '/k/config': { text: kubeconfig(kubecredUser('dev', 'dev')) } }, CONFIG, false);
    expect(gone[0]?.detail).toBe('its exec command /opt/kubecred/kubecred-shim does not exist');
    const broken = await check({ '/k/config': { text: 'users: [' } }, CONFIG);
    expect(broken[0]).toMatchObject({ status: 'fail', title: '/k/config' });
  });

  it('warns instead of guessing while config.yaml is broken', async () => {
    const [finding] = await check({ '/k/config': { text: kubeconfig(kubecredUser('dev', 'dev')) } }, undefined);
    expect(finding?.status).toBe('warn');
  });
});

describe('plaintext exposure check', () => {
  it('warns about a group- or world-readable kubeconfig holding plaintext credentials, never printing them', async () => {
    const findings = await kubeconfigExposureCheck(
      await files({ '/k/config': { text: kubeconfig(tokenUser('admin')), mode: 0o100644 } }),
      'linux',
    ).run();
    expect(findings[0]).toMatchObject({ status: 'warn', title: '/k/config' });
    expect(findings[0]?.detail).toContain('every user on this machine');
    expect(findings[0]?.detail).toContain('admin (token)');
    expect(findings[0]?.fix).toContain('kubecred import');
    expect(JSON.stringify(findings)).not.toContain(SECRET);
  });

  it('does not warn about a private file, or an open one without credentials', async () => {
    const privateFile = await kubeconfigExposureCheck(
      await files({ '/k/a': { text: kubeconfig(tokenUser('admin')), mode: 0o100600 } }),
      'linux',
    ).run();
    const openEmpty = await kubeconfigExposureCheck(
      await files({ '/k/b': { text: kubeconfig(kubecredUser('a', 'dev')), mode: 0o100644 } }),
      'linux',
    ).run();
    expect([...privateFile, ...openEmpty].map((f) => f.status)).toEqual(['ok', 'ok']);
  });
});

describe('kubectl version check', () => {
  it('knows which kubectl speaks which exec apiVersion', () => {
    expect(unsupportedReason(V1, 21)).toMatch(/1\.22/);
    expect(unsupportedReason(V1, 22)).toBeUndefined();
    expect(unsupportedReason('client.authentication.k8s.io/v1beta1', 11)).toBeUndefined();
    expect(unsupportedReason('client.authentication.k8s.io/v1alpha1', 23)).toBeUndefined();
    expect(unsupportedReason('client.authentication.k8s.io/v1alpha1', 24)).toMatch(/removed/);
  });

  it('fails a v1 user under kubectl 1.21 with the documented fix, and passes 1.27', async () => {
    const kubeconfigs = await files({ '/k/config': { text: kubeconfig(kubecredUser('dev', 'dev')) } });
    const old = await kubectlVersionCheck(kubeconfigs, async () => ({
      command: 'kubectl',
      gitVersion: 'v1.21.14',
      minor: 21,
    })).run();
    expect(old[0]).toMatchObject({
      status: 'fail',
      fix: 'use apiVersion v1beta1 (kubecred install --api-version v1beta1) or upgrade kubectl',
    });
    expect(old[0]?.detail).toContain('user "dev" in /k/config');
    const current = await kubectlVersionCheck(kubeconfigs, async () => ({
      command: 'kubectl',
      gitVersion: 'v1.27.16',
      minor: 27,
    })).run();
    expect(current[0]).toMatchObject({ status: 'ok', title: 'kubectl v1.27.16' });
  });

  it('warns when there is no kubectl, or it cannot say its version', async () => {
    expect((await kubectlVersionCheck([], async () => undefined).run())[0]?.status).toBe('warn');
    expect(
      (
        await kubectlVersionCheck([], async () => {
          throw new Error('exit 1');
        }).run()
      )[0]?.status,
    ).toBe('warn');
  });
});
