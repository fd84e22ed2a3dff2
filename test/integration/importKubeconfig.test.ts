import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiStandIn, type ApiStandIn } from '../support/apiServer.js';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { writeFakeExecPlugin } from '../support/fakeExecPlugin.js';
import { findLeaks } from '../support/hygiene.js';
import { KUBECONFIG_FIXTURES, writeKubeconfigFixture, type KubeconfigFixture } from '../support/kubeconfig.js';
import { findKubectlBuilds, runKubectl } from '../support/kubectl.js';
import { createTestPki, type TestPki } from '../support/pki.js';
import { KUBECRED_CLI, NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const TOKEN = 'kc-import-token-2c4e6a8b0d';
const SECRETS = {
  TOKEN_B: 'kc-import-token-b-7e9f1a',
  SHADOWED_TOKEN: 'kc-shadowed-3d5f7b',
  REFRESH: 'kc-refresh-9b8a7c',
  CLIENT_SECRET: 'kc-client-secret-1f2e3d',
  ID_TOKEN: 'kc-id-token-4a5b6c',
  PASSWORD: 'kc-basic-password-8c7d6e',
};
const NEWEST = findKubectlBuilds().at(-1)!;
const OLDEST = findKubectlBuilds()[0]!;

interface ConfigView {
  users: Array<{ name: string; user: Record<string, unknown> }>;
  [key: string]: unknown;
}

describe('kubecred import', () => {
  let home: TempHome;
  let pki: TestPki;
  let tokenApi: ApiStandIn;
  let certApi: ApiStandIn;
  let broker: TestBroker;
  const { cli } = callersFor(() => home.dir);
  const kube = (name: string) => path.join(home.dir, 'kube', name);
  const kubectl = (args: string[], kubeconfig: string, build = NEWEST) =>
    runKubectl(build.path, args, { kubeconfig, env: { KUBECRED_HOME: home.dir } });
  const view = async (kubeconfig: string) =>
    JSON.parse((await kubectl(['config', 'view', '--raw', '-o', 'json'], kubeconfig)).stdout) as ConfigView;

  async function fixture(name: KubeconfigFixture, file = kube(`${name}.yaml`)): Promise<string> {
    const api = name === 'kind' || name === 'minikube' ? certApi : tokenApi;
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    return writeKubeconfigFixture(name, file, {
      ...SECRETS,
      SERVER: api.url,
      CA_B64: b64(pki.caPem),
      CERT_B64: b64(pki.clientCertPem),
      KEY_B64: b64(pki.clientKeyPem),
      TOKEN,
      DIR: path.join(home.dir, 'kube'),
    });
  }

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    pki = await createTestPki(path.join(home.dir, 'pki'));
    tokenApi = await startApiStandIn({ pki, auth: { bearerToken: TOKEN } });
    certApi = await startApiStandIn({ pki, auth: { clientCert: true } });
    await mkdir(kube('tokens'), { recursive: true });
    await mkdir(kube('profiles/minikube'), { recursive: true });
    await writeFile(kube('tokens/deployer.token'), `${TOKEN}\n`, { mode: 0o600 });
    await writeFile(kube('ca.crt'), pki.caPem);
    await writeFile(kube('profiles/minikube/client.crt'), pki.clientCertPem);
    await writeFile(kube('profiles/minikube/client.key'), pki.clientKeyPem, { mode: 0o600 });
    await writeConfig(
      home.dir,
      '# my profiles\nprofiles:\n  - name: kind-kind # taken: import picks another name\n    provider: static\n',
    );
    // A stand-in gke-gcloud-auth-plugin on the user's shell PATH only, not the broker's (a tray
    // app's PATH is short): the wrapped GKE user must keep working.
    await mkdir(path.join(home.dir, 'bin'));
    await writeFakeExecPlugin({
      path: path.join(home.dir, 'bin', 'gke-gcloud-auth-plugin'),
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      status: { token: TOKEN },
    });
    broker = await startTestBroker(home.dir);
  });
  afterAll(async () => {
    await broker?.stop();
    await tokenApi?.close();
    await certApi?.close();
    await home?.cleanup();
  });

  it('round-trips every fixture: kubectl config view is equal except the credentials, which are now in Kubecred', async () => {
    const plain = (v: ConfigView) => ({ ...v, users: v.users.map((u) => u.name) });
    // All fixtures at once, as one KUBECONFIG: one import, each user edited in its own file.
    const names = KUBECONFIG_FIXTURES.filter((n) => !n.startsWith('multi'));
    const files = await Promise.all(names.map((name) => fixture(name)));
    const originals = await Promise.all(files.map((file) => readFile(file, 'utf8')));
    const before = await Promise.all(files.map(view));
    // The user's shell finds the stand-in gke-gcloud-auth-plugin; import pins that path for the broker.
    const shellPath = `${path.join(home.dir, 'bin')}:${process.env.PATH ?? ''}`;
    const result = await run(process.execPath, [KUBECRED_CLI, 'import'], {
      env: { ...brokerEnv(home.dir), KUBECONFIG: files.join(':'), PATH: shellPath },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
    for (const [i, name] of names.entries()) {
      const file = files[i]!;
      const after = await view(file);
      expect(plain(after), name).toEqual(plain(before[i]!));
      for (const [index, user] of after.users.entries()) {
        const exec = user.user.exec as { command?: string; args?: string[] } | undefined;
        if (result.stderr.includes(`left user "${user.name}"`))
          expect(user.user, `${name}/${user.name}`).toEqual(before[i]!.users[index]!.user);
        else
          expect(exec?.command === NATIVE_SHIM && exec.args?.[0] === 'credential', `${name}/${user.name}`).toBe(true);
      }
      const text = await readFile(file, 'utf8');
      for (const comment of originals[i]!.split('\n').filter(
        (line) => /(^|\s)#/.test(line) && !/token:|password:/.test(line),
      ))
        expect(text, name).toContain(comment);
      const backup = new RegExp(`backup of ${file} as it was: (\\S+)`).exec(result.stderr)?.[1];
      expect(backup, name).toBeDefined();
      expect(await readFile(backup!, 'utf8')).toBe(originals[i]);
      expect((await stat(backup!)).mode & 0o777).toBe(0o600);
      expect((await stat(path.dirname(backup!))).mode & 0o777).toBe(0o700);
    }
    // Secrets that moved are gone from every kubeconfig, the broker log and argv; the referenced
    // files (tokens/, profiles/) are the user's and stay; basic auth cannot move, so it stays.
    const planted = [TOKEN, SECRETS.REFRESH, SECRETS.CLIENT_SECRET, SECRETS.ID_TOKEN, pki.clientKeyPem.split('\n')[1]!];
    expect(
      await findLeaks(planted, {
        dir: path.join(home.dir, 'kube'),
        log: broker.output(),
        excludeDirs: ['tokens', 'profiles'],
      }),
    ).toEqual([]);
    expect(await readFile(kube('oidc-legacy.yaml'), 'utf8')).toContain(SECRETS.PASSWORD);
    const profiles = JSON.parse((await cli(['profile', 'list', '-o', 'json'])).stdout) as Array<{
      name: string;
      provider: string;
    }>;
    expect(profiles.map((p) => `${p.name}:${p.provider}`)).toEqual(
      expect.arrayContaining([
        'kind-kind:static',
        'kind-kind-2:static',
        'gke_acme-dev_europe-west1_web:exec',
        'alice-corp:oidc',
        'deployer:static',
        'file-token:static',
        'minikube:static',
      ]),
    );
    const config = await readFile(path.join(home.dir, 'config.yaml'), 'utf8');
    expect(config).toContain('# taken: import picks another name');
    expect(config).toContain(`command: ${path.join(home.dir, 'bin', 'gke-gcloud-auth-plugin')}`);
  });

  it('kubectl works through Kubecred afterwards: tokens, token files, inline and file certificates, a wrapped plugin', async () => {
    // eks is left out: it becomes an eks profile of AWS profile prod-admin, which these files do not have (eksRoleKubectl.test.ts imports one for real).
    const cases: Array<[KubeconfigFixture, string | undefined]> = [
      ['aks', undefined],
      ['kind', undefined],
      ['minikube', undefined],
      ['commented', 'staging'],
      ['commented', 'staging-file'],
      ['gke', undefined],
    ];
    for (const [name, context] of cases) {
      for (const build of [OLDEST, NEWEST]) {
        const answer = await kubectl(
          ['get', '--raw', '/version', ...(context ? ['--context', context] : [])],
          kube(`${name}.yaml`),
          build,
        );
        expect(answer.code, `${name} ${context ?? ''} ${build.name}: ${answer.stderr}`).toBe(0);
      }
    }
    expect(certApi.requests.some((r) => r.authorized)).toBe(true);
    expect(tokenApi.requests.some((r) => r.authorized)).toBe(true);
  });

  it('imports a KUBECONFIG of several files, each user in the file that defines it', async () => {
    const a = await fixture('multi-a');
    const b = await fixture('multi-b');
    const both = await run(process.execPath, [KUBECRED_CLI, 'import'], {
      env: { ...brokerEnv(home.dir), KUBECONFIG: `${a}:${b}` },
    });
    expect(both.code, both.stderr).toBe(0);
    expect(both.stderr).toContain(`moved user "shared-user" of ${a}`);
    expect(both.stderr).toContain(`moved user "b-only" of ${b}`);
    expect(both.stderr).toContain(`left user "shared-user" of ${b} as it is: an earlier file`);
    expect(await readFile(b, 'utf8')).toContain(SECRETS.SHADOWED_TOKEN);
    expect(await readFile(b, 'utf8')).not.toContain(SECRETS.TOKEN_B);
    const answer = await runKubectl(NEWEST.path, ['get', '--raw', '/version'], {
      kubeconfig: `${a}:${b}`,
      env: { KUBECRED_HOME: home.dir },
    });
    expect(answer.code, answer.stderr).toBe(0);
  });

  it('a kubectl config set-context running during import loses nothing', async () => {
    const file = kube('busy.yaml');
    const users = Array.from({ length: 6 }, (_, i) => `- name: u${i}\n  user:\n    token: ${TOKEN}\n`).join('');
    await writeFile(
      file,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${tokenApi.url}\n    certificate-authority-data: ${Buffer.from(pki.caPem).toString('base64')}\ncontexts: []\nusers:\n${users}`,
      { mode: 0o600 },
    );
    const errors = kube('busy.errors');
    // kubectl gives up at once when it finds the lock held; every context it reports set must be there at the end.
    // KUBECRED_HOME too: kubectl 1.33 runs the users' exec plugin even for config set-context.
    const loop = run(
      'bash',
      [
        '-c',
        `for i in $(seq 1 40); do "${NEWEST.path}" --kubeconfig "${file}" config set-context busy-$i --cluster=c --user=u0 >/dev/null 2>>"${errors}" && echo $i; done`,
      ],
      { env: brokerEnv(home.dir) },
    );
    while (!(await readFile(file, 'utf8')).includes('busy-2')) await new Promise((resolve) => setTimeout(resolve, 20));
    const imported = await cli(['import', '--kubeconfig', file]);
    expect(imported.code, imported.stderr).toBe(0);
    const set = (await loop).stdout.split('\n').filter(Boolean);
    const refused = (await readFile(errors, 'utf8').catch(() => ''))
      .split('\n')
      .filter((line) => line.startsWith('error'));
    expect(set.length + refused.length).toBe(40);
    for (const line of refused) expect(line).toContain('busy.yaml.lock');
    // kubectl writes back the whole config it read, so a set-context that read the file before
    // the import and wrote after it restores that user's old token: nothing is lost, and a
    // second import moves it again.
    const again = (await readFile(file, 'utf8')).includes(TOKEN)
      ? await cli(['import', '--kubeconfig', file])
      : undefined;
    expect(again?.code ?? 0, again?.stderr).toBe(0);
    const final = await view(file);
    expect(final.contexts as Array<{ name: string }>).toEqual(
      expect.arrayContaining(set.map((i) => expect.objectContaining({ name: `busy-${i}` }))),
    );
    expect(final.users.map((u) => (u.user.exec as { args?: string[] } | undefined)?.args?.[0])).toEqual(
      Array(6).fill('credential'),
    );
    expect(await readFile(file, 'utf8')).not.toContain(TOKEN);
    console.log(
      `concurrent set-context: ${set.length} set, ${refused.length} refused on the lock, second import ${again ? 'needed' : 'not needed'}`,
    );
  });

  it('--dry-run prints the diff with secrets redacted and changes nothing', async () => {
    const file = await fixture('aks', kube('dry.yaml'));
    const before = await readFile(file, 'utf8');
    const config = await readFile(path.join(home.dir, 'config.yaml'), 'utf8');
    const result = await cli(['import', '--kubeconfig', file, '--dry-run']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^-\s+token: <redacted>$/m);
    expect(result.stdout).toMatch(/^\+\s+command: \S*kubecred-shim$/m);
    expect(result.stderr).toContain('would move user "clusterAdmin_shop-rg_shop-aks"');
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
    expect(result.stdout).not.toContain(Buffer.from(pki.clientKeyPem).toString('base64'));
    expect(await readFile(file, 'utf8')).toBe(before);
    expect(await readFile(path.join(home.dir, 'config.yaml'), 'utf8')).toBe(config);
  });

  it('reports a kubeconfig that does not parse with its line and leaves it untouched', async () => {
    const file = kube('broken.yaml');
    const text = `apiVersion: v1\nusers:\n- name: a\n  user:\n    token: ${TOKEN}\n  - name: b\n`;
    await writeFile(file, text, { mode: 0o600 });
    const result = await cli(['import', '--kubeconfig', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`${file}:\\d+: not valid YAML.*Nothing was changed`));
    expect(result.stderr).not.toContain(TOKEN);
    expect(await readFile(file, 'utf8')).toBe(text);
    expect((await readdir(kube('.'))).filter((f) => f.startsWith('broken'))).toEqual(['broken.yaml']);
  });
});
