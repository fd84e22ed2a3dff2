import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  KubeconfigSyntaxError,
  loadKubeconfigFile,
  renderKubeconfig,
} from '../../../src/main/kubeconfig/kubeconfigDocument.js';
import { loadKubeconfigSet } from '../../../src/main/kubeconfig/kubeconfigSet.js';
import { planImport } from '../../../src/main/kubeconfig/importPlan.js';
import { unifiedDiff } from '../../../src/main/kubeconfig/lineDiff.js';
import { profileNameFor } from '../../../src/main/kubeconfig/profileNames.js';
import { ImportInputError } from '../../../src/main/kubeconfig/readSecretSource.js';
import { KUBECONFIG_FIXTURES, writeKubeconfigFixture, type KubeconfigFixture } from '../../support/kubeconfig.js';
import { profileSchema } from '../../../src/shared/config/schema.js';

const CERT = '-----BEGIN CERTIFICATE-----\nMIIBplanted-cert\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN EC PRIVATE KEY-----\nplanted-key-7f3a\n-----END EC PRIVATE KEY-----\n';
const VARS = {
  SERVER: 'https://127.0.0.1:6443',
  CA_B64: Buffer.from('-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n').toString('base64'),
  CERT_B64: Buffer.from(CERT).toString('base64'),
  KEY_B64: Buffer.from(KEY).toString('base64'),
  TOKEN: 'planted-token-0a1b2c3d',
  TOKEN_B: 'planted-token-b-9e8d',
  SHADOWED_TOKEN: 'planted-shadowed-5c5c',
  REFRESH: 'planted-refresh-4d4d',
  CLIENT_SECRET: 'planted-client-secret-6e6e',
  ID_TOKEN: 'planted-id-token-7f7f',
  PASSWORD: 'planted-password-8a8a',
};
const PLANTED = [
  VARS.TOKEN,
  VARS.TOKEN_B,
  VARS.REFRESH,
  VARS.CLIENT_SECRET,
  VARS.ID_TOKEN,
  VARS.PASSWORD,
  'planted-key-7f3a',
  VARS.KEY_B64,
];
const OPTIONS = {
  command: '/opt/kubecred/kubecred-shim',
  takenProfiles: ['kind-kind'],
  caDir: '/home/u/.config/kubecred/ca',
};

describe('kubecred import plan', () => {
  let dir: string;
  const at = (name: string) => path.join(dir, name);
  const plan = async (...names: KubeconfigFixture[]) =>
    planImport(await loadKubeconfigSet(names.map((n) => at(`${n}.yaml`))), OPTIONS);

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'kc-plan-'));
    await mkdir(at('tokens'));
    await writeFile(at('tokens/deployer.token'), `${VARS.TOKEN}\n`);
    await mkdir(at('profiles/minikube'), { recursive: true });
    await writeFile(at('profiles/minikube/client.crt'), CERT);
    await writeFile(at('profiles/minikube/client.key'), KEY);
    for (const name of KUBECONFIG_FIXTURES)
      await writeKubeconfigFixture(name, at(`${name}.yaml`), { ...VARS, DIR: dir });
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('re-renders every fixture byte for byte when nothing changes, so a rewrite touches only the users', async () => {
    for (const name of KUBECONFIG_FIXTURES) {
      const file = await loadKubeconfigFile(at(`${name}.yaml`));
      expect(renderKubeconfig(file), name).toBe(file.text);
    }
  });

  it('turns each kind of user into the right profile and secrets', async () => {
    const kind = await plan('kind');
    expect(kind.imported).toHaveLength(1);
    expect(kind.imported[0]).toMatchObject({
      profile: 'kind-kind-2',
      provider: 'static',
      profileInput: { provider: 'static' },
    });
    expect(kind.imported[0]!.secrets.map((s) => [s.field, s.value])).toEqual([
      ['client-certificate', CERT],
      ['client-key', KEY],
    ]);

    const eks = await plan('eks');
    // Issue 17: `aws eks get-token` with AWS_PROFILE becomes an eks profile doing the same.
    expect(eks.imported.map((u) => [u.profile, u.provider])).toEqual([
      ['arn-aws-eks-eu-west-1-123456789012-cluster-prod', 'eks'],
      ['ci-deployer', 'static'],
    ]);
    expect(eks.imported[0]!.profileInput).toEqual({
      name: 'arn-aws-eks-eu-west-1-123456789012-cluster-prod',
      description: expect.stringContaining('imported from user'),
      provider: 'eks',
      clusterId: 'prod',
      region: 'eu-west-1',
      awsProfile: 'prod-admin',
    });
    expect(profileSchema.safeParse(eks.imported[0]!.profileInput).success).toBe(true);
    expect(eks.imported[0]!.notes).toEqual([]);
    expect(eks.imported[0]!.news).toEqual([
      'this was aws eks get-token: Kubecred now makes the same tokens itself from AWS profile "prod-admin", one session for every cluster and caller (kubecred doctor checks the profile)',
    ]);

    // A wrapped plugin's arguments and env move into config.yaml as they are: said every time (B10).
    await writeFile(
      at('aws-kept.yaml'),
      'users:\n- name: kept\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: aws\n      args: [eks, get-token, --cluster-name, prod, --output, json]\n      env: [{name: AWS_PROFILE, value: prod-admin}]\n',
    );
    const [kept] = (await planImport(await loadKubeconfigSet([at('aws-kept.yaml')]), OPTIONS)).imported;
    expect(kept!.provider).toBe('exec');
    expect(kept!.notes[0]).toMatch(
      /^its 6 plugin argument\(s\) and its env AWS_PROFILE move into config.yaml in plain text/,
    );
    expect(kept!.notes).toContain(
      'this is aws eks get-token, kept as a wrapped plugin because of no --region (nor AWS_REGION in its env): the region then comes from the AWS profile, which Kubecred does not guess at import; an eks profile (kubecred profile add <name> --provider eks) makes the same tokens itself',
    );

    const minikube = await plan('minikube');
    expect(minikube.imported[0]!.secrets.map((s) => s.file)).toEqual([
      at('profiles/minikube/client.crt'),
      at('profiles/minikube/client.key'),
    ]);

    const oidc = await plan('oidc-legacy');
    expect(oidc.imported).toHaveLength(1);
    expect(oidc.imported[0]!.profileInput).toMatchObject({
      provider: 'oidc',
      issuer: 'https://login.corp.example.com/realms/k8s',
      clientId: 'kubernetes',
      scopes: ['openid', 'offline_access', 'groups', 'email'],
    });
    expect(oidc.imported[0]!.secrets.map((s) => [s.field, s.value])).toEqual([
      ['refresh-token', VARS.REFRESH],
      ['client-secret', VARS.CLIENT_SECRET],
      ['id-token', VARS.ID_TOKEN],
    ]);
    expect(oidc.left.map((u) => u.user)).toEqual(['legacy-gcp', 'old-basic']);
    expect(oidc.left[1]!.reason).toContain('basic auth');
  });

  it('rewrites users to call Kubecred, keeping comments, order and unknown fields', async () => {
    const { rewrites, imported } = await plan('commented');
    expect(imported.map((u) => u.user)).toEqual(['deployer', 'file-token']);
    const text = rewrites[0]!.text;
    const original = rewrites[0]!.source.text;
    for (const comment of original.split('\n').filter((line) => line.includes('#') && !line.includes('token:')))
      expect(text).toContain(comment);
    expect(text).toContain('as: ci-bot # impersonation stays');
    expect(text).not.toContain(VARS.TOKEN);
    expect(text).not.toContain('tokenFile');
    const users = (
      parse(text) as { users: Array<{ name: string; user: { exec: { command: string; args: string[] } } }> }
    ).users;
    expect(users.map((u) => [u.user.exec.command, ...u.user.exec.args])).toEqual([
      ['/opt/kubecred/kubecred-shim', 'credential', 'deployer'],
      ['/opt/kubecred/kubecred-shim', 'credential', 'file-token'],
    ]);
    expect(text.indexOf('clusters:')).toBeLessThan(text.indexOf('contexts:'));
  });

  it('shows a diff with every secret redacted, including unchanged context lines', async () => {
    for (const names of [
      ['aks'],
      ['kind'],
      ['eks'],
      ['oidc-legacy'],
      ['commented'],
      ['multi-a', 'multi-b'],
    ] as KubeconfigFixture[][]) {
      const { rewrites } = await plan(...names);
      const diff = rewrites.map((r) => r.diff).join('');
      expect(diff, names.join()).toMatch(/^\+\s+command: \/opt\/kubecred\/kubecred-shim$/m);
      for (const secret of PLANTED) expect(diff, names.join()).not.toContain(secret);
    }
    expect((await plan('oidc-legacy')).rewrites[0]!.diff).toMatch(/^-\s+refresh-token: <redacted>$/m);
  });

  it('edits each user in the file that defines it and leaves shadowed users alone', async () => {
    const { imported, left, rewrites } = await plan('multi-a', 'multi-b');
    expect(imported.map((u) => [u.user, path.basename(u.file)])).toEqual([
      ['shared-user', 'multi-a.yaml'],
      ['b-only', 'multi-b.yaml'],
    ]);
    expect(left).toEqual([expect.objectContaining({ user: 'shared-user', file: at('multi-b.yaml') })]);
    expect(rewrites.map((r) => path.basename(r.source.file))).toEqual(['multi-a.yaml', 'multi-b.yaml']);
    expect(rewrites[1]!.text).toContain(VARS.SHADOWED_TOKEN);
  });

  it("warns when a wrapped plugin's env holds a secret, and redacts it in the diff", async () => {
    await writeFile(
      at('envsecret.yaml'),
      'users:\n- name: aws\n  user:\n    exec:\n      command: aws\n      env:\n      - name: AWS_SECRET_ACCESS_KEY\n        value: planted-aws-secret-3c3c\n',
    );
    const { imported, rewrites } = await planImport(await loadKubeconfigSet([at('envsecret.yaml')]), OPTIONS);
    expect(imported[0]!.notes.join('\n')).toContain(
      'its env AWS_SECRET_ACCESS_KEY move into config.yaml in plain text, as they were in the kubeconfig (AWS_SECRET_ACCESS_KEY looks secret)',
    );
    expect(rewrites[0]!.diff).not.toContain('planted-aws-secret-3c3c');
  });

  it('redacts secret-looking exec arguments and env values in the diff, and says they move (B10)', async () => {
    await writeFile(
      at('argsecret.yaml'),
      'users:\n- name: plug\n  user:\n    exec:\n      command: /usr/bin/plug\n      args: [get-token, --token, SECRET-ARG-HHHH, --key=SECRET-ARG-IIII, -v]\n      env:\n      - name: PLUGIN_OPTS\n        value: --api-key=SECRET-ENV-GGGG\n',
    );
    const { imported, rewrites } = await planImport(await loadKubeconfigSet([at('argsecret.yaml')]), OPTIONS);
    for (const secret of ['SECRET-ARG-HHHH', 'SECRET-ARG-IIII', 'SECRET-ENV-GGGG'])
      expect(rewrites[0]!.diff).not.toContain(secret);
    expect(rewrites[0]!.diff).toContain('--token');
    expect(rewrites[0]!.diff).toContain('--key=<redacted>');
    expect(imported[0]!.notes.join('\n')).toContain(
      'its 5 plugin argument(s) and its env PLUGIN_OPTS move into config.yaml in plain text',
    );
  });

  it('refuses a kubeconfig too big to edit in memory, saying how to split it (B11)', async () => {
    await writeFile(
      at('huge.yaml'),
      `users:\n${'# padding padding padding padding padding padding padding\n'.repeat(80_000)}`,
    );
    const error = await loadKubeconfigFile(at('huge.yaml')).catch((e: unknown) => e);
    expect(String(error)).toMatch(/huge.yaml: it is 4\.\d MiB, more than the 4 MiB Kubecred edits; split it/);
  });

  it("says when a wrapped plugin is not on PATH, and offers kubelogin users Kubecred's own OIDC login (finding 2)", async () => {
    await writeFile(
      at('kubelogin.yaml'),
      'users:\n- name: sso\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: kubectl-oidc_login\n      args: [get-token, --oidc-issuer-url=https://id.example.com, --oidc-client-id, kubernetes]\n',
    );
    const options = {
      ...OPTIONS,
      findCommand: (name: string) => (name === 'kubectl-oidc_login' ? '/usr/local/bin/kubectl-oidc_login' : undefined),
    };
    const [found] = (await planImport(await loadKubeconfigSet([at('kubelogin.yaml')]), options)).imported;
    expect(found!.profileInput).toMatchObject({ command: '/usr/local/bin/kubectl-oidc_login' });
    expect(found!.notes.some((note) => note.includes('not on this shell'))).toBe(false);
    expect(found!.notes).toContain(
      'this is kubelogin: Kubecred can log in to https://id.example.com itself, one login for every kubectl',
    );

    const [missing] = (
      await planImport(await loadKubeconfigSet([at('kubelogin.yaml')]), { ...OPTIONS, findCommand: () => undefined })
    ).imported;
    expect(missing!.profileInput).toMatchObject({ command: 'kubectl-oidc_login' });
    expect(missing!.notes).toContain(
      "kubectl-oidc_login is not on this shell's PATH, so kubectl could not run it either: install it, or set its full path with kubecred profile set sso --command /path/to/kubectl-oidc_login",
    );
  });

  it('resolves YAML aliases in an exec block as kubectl does, and refuses an alias bomb (I2)', async () => {
    await writeFile(
      at('alias.yaml'),
      'common: &common [eks, get-token, --cluster-name, prod]\nusers:\n- name: aliased\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: /usr/bin/aws\n      args: *common\n',
    );
    const { imported } = await planImport(await loadKubeconfigSet([at('alias.yaml')]), OPTIONS);
    expect(imported[0]!.profileInput).toMatchObject({
      provider: 'exec',
      command: '/usr/bin/aws',
      args: ['eks', 'get-token', '--cluster-name', 'prod'],
    });
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x]',
      ...Array.from(
        { length: 8 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9)
            .fill(`*${String.fromCharCode(97 + i)}`)
            .join(', ')}]`,
      ),
    ].join('\n');
    await writeFile(
      at('bomb.yaml'),
      `${bomb}\nusers:\n- name: bomb\n  user:\n    exec:\n      command: /bin/true\n      args: *i\n`,
    );
    const { imported: none, left } = await planImport(await loadKubeconfigSet([at('bomb.yaml')]), OPTIONS);
    expect(none).toEqual([]);
    expect(left).toEqual([
      expect.objectContaining({ user: 'bomb', reason: expect.stringContaining('too many YAML aliases') }),
    ]);
  });

  it('writes the exec block in block style even into a flow-style user', async () => {
    await writeFile(at('flow.yaml'), `users:\n- name: f\n  user: {token: ${VARS.TOKEN}, as: bot}\n`);
    const { rewrites } = await planImport(await loadKubeconfigSet([at('flow.yaml')]), OPTIONS);
    expect(rewrites[0]!.text).toMatch(/^  user:\n    as: bot\n    exec:\n      apiVersion: /m);
  });

  it('names the file and line of a kubeconfig that does not parse, or a secret file that is missing', async () => {
    await writeFile(at('bad.yaml'), 'apiVersion: v1\nusers:\n- name: a\n  user:\n    token: [unclosed\n');
    const error = await loadKubeconfigFile(at('bad.yaml')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeconfigSyntaxError);
    expect((error as Error).message.startsWith(`${at('bad.yaml')}:`)).toBe(true);
    expect((error as Error).message).toMatch(/^.*bad\.yaml:\d+: not valid YAML/);
    await writeFile(at('badshape.yaml'), 'users:\n  name: a\n');
    await expect(loadKubeconfigFile(at('badshape.yaml'))).rejects.toThrow(
      `${at('badshape.yaml')}:2: users: must be a list`,
    );
    await writeFile(
      at('missing.yaml'),
      'users:\n- name: ok\n  user: {}\n- name: gone\n  user:\n    tokenFile: nowhere.token\n',
    );
    const missing = await planImport(await loadKubeconfigSet([at('missing.yaml')]), OPTIONS).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ImportInputError);
    expect((missing as Error).message).toContain(
      `${at('missing.yaml')}:4: user "gone": cannot read tokenFile ${at('nowhere.token')} (ENOENT)`,
    );
  });
});

describe('small pieces of import', () => {
  it('stores secrets under the field names the providers read', async () => {
    const { STATIC_FIELDS } = await import('../../../src/main/providers/static/staticProvider.js');
    const { REFRESH_TOKEN_FIELD } = await import('../../../src/main/providers/oidc/oidcProvider.js');
    const { CLIENT_SECRET_FIELD } = await import('../../../src/main/providers/oidc/issuerConnection.js');
    const { classifyUser } = await import('../../../src/main/kubeconfig/userCredentials.js');
    const { parseDocument, isMap } = await import('yaml');
    const user = (yaml: string) => {
      const node = parseDocument(yaml).contents;
      return isMap(node) ? node : undefined;
    };
    const fields = (yaml: string) => {
      const credential = classifyUser(user(yaml));
      return 'secrets' in credential ? credential.secrets.map((s) => s.field) : [];
    };
    expect(fields('token: t\nclient-certificate-data: Yw==\nclient-key-data: aw==\n')).toEqual([...STATIC_FIELDS]);
    expect(
      fields(
        'auth-provider: {name: oidc, config: {idp-issuer-url: "https://i", client-id: k, refresh-token: r, client-secret: s}}\n',
      ),
    ).toEqual([REFRESH_TOKEN_FIELD, CLIENT_SECRET_FIELD]);
  });

  it('makes valid, unique profile names from any kubeconfig user name', () => {
    const taken = new Set(['prod']);
    expect(profileNameFor('Prod', taken)).toBe('prod-2');
    expect(profileNameFor('Prod', taken)).toBe('prod-3');
    expect(profileNameFor('--@@--', taken)).toBe('imported');
    const long = profileNameFor('x'.repeat(80), taken);
    expect(long).toHaveLength(63);
    expect(profileNameFor('x'.repeat(80), taken)).toMatch(/^x{61}-2$/);
  });

  it('diffs lines as a unified diff with context', () => {
    const before = 'a\nb\nc\nd\ne\nf\ng\nh\n';
    expect(unifiedDiff(before, before, 'f')).toBe('');
    expect(unifiedDiff(before, 'a\nb\nc\nd\nE\nf\ng\nh\n', 'f')).toBe(
      '--- f\n+++ f (rewritten)\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n',
    );
  });
});
