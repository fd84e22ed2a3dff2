import { lstat, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { INSTALL_HINT } from '../../src/main/kubeconfig/kubecredExec.js';
import { startApiStandIn, type ApiStandIn } from '../support/apiServer.js';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { findKubectlBuilds, runKubectl } from '../support/kubectl.js';
import { createTestPki, type TestPki } from '../support/pki.js';
import { NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';
import { KUBECRED_CLI } from '../support/repo.js';

const TOKEN = 'kc-install-token-5b7d9f1e3a';
const BUILDS = findKubectlBuilds();
const OLDEST_AND_NEWEST = [BUILDS[0]!, BUILDS[BUILDS.length - 1]!];

interface Kubeconfig {
  users: Array<{ name: string; user: Record<string, unknown> & { exec?: Record<string, unknown> } }>;
}

describe('kubecred install', () => {
  let home: TempHome;
  let pki: TestPki;
  let api: ApiStandIn;
  let broker: TestBroker;
  const { cli } = callersFor(() => home.dir);
  const at = (name: string) => path.join(home.dir, name);

  function kubeconfigText(opts: { context?: boolean; cluster?: boolean; user?: string; header?: string }): string {
    const cluster =
      opts.cluster === false
        ? 'clusters: []\n'
        : `clusters:\n- name: dev\n  cluster:\n    server: ${api.url}\n    certificate-authority-data: ${Buffer.from(pki.caPem).toString('base64')}\n`;
    const context =
      opts.context === false
        ? 'contexts: []\n'
        : 'contexts:\n- name: dev\n  context:\n    cluster: dev\n    user: dev-user\ncurrent-context: dev\n';
    return `${opts.header ?? '# my kubeconfig\n'}apiVersion: v1\nkind: Config\n${cluster}${context}${opts.user ?? 'users: []\n'}`;
  }

  const kubectl = (build: string, kubeconfig: string) =>
    runKubectl(build, ['get', '--raw', '/version'], { kubeconfig, env: { KUBECRED_HOME: home.dir } });

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    pki = await createTestPki(at('pki'));
    api = await startApiStandIn({ pki, auth: { bearerToken: TOKEN } });
    await writeConfig(home.dir, 'profiles:\n  - name: tok\n    provider: static\n');
    broker = await startTestBroker(home.dir);
    const stored = await run(process.execPath, [KUBECRED_CLI, 'secret', 'set', 'tok', 'token'], {
      env: brokerEnv(home.dir),
      input: TOKEN,
    });
    expect(stored.code, stored.stderr).toBe(0);
  });
  afterAll(async () => {
    await broker?.stop();
    await api?.close();
    await home?.cleanup();
  });

  it('writes the exec block for the current context and kubectl then works through Kubecred', async () => {
    const file = at('config');
    await writeFile(file, kubeconfigText({ user: 'users:\n- name: dev-user # filled in by kubecred\n  user: {}\n' }), {
      mode: 0o640,
    });
    for (const build of OLDEST_AND_NEWEST) expect((await kubectl(build.path, file)).code).not.toBe(0);
    const result = await cli(['install', '--profile', 'tok', '--kubeconfig', file]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('user "dev-user" of context "dev"');
    const text = await readFile(file, 'utf8');
    expect(text).toContain('# my kubeconfig');
    expect(text).toContain('- name: dev-user # filled in by kubecred');
    const exec = (parse(text) as Kubeconfig).users[0]!.user.exec;
    expect(exec).toEqual({
      apiVersion: 'client.authentication.k8s.io/v1',
      command: NATIVE_SHIM,
      args: ['credential', 'tok'],
      interactiveMode: 'IfAvailable',
      provideClusterInfo: true,
      installHint: INSTALL_HINT,
    });
    expect((await stat(file)).mode & 0o777).toBe(0o640);
    for (const build of OLDEST_AND_NEWEST) {
      const answer = await kubectl(build.path, file);
      expect(answer.code, `${build.name}: ${answer.stderr}`).toBe(0);
      expect(JSON.parse(answer.stdout).gitVersion).toBe('v1.33.0');
    }
  });

  it('edits the user in the file of KUBECONFIG that defines it, and creates a missing one where kubectl would', async () => {
    const first = at('first.yaml');
    const second = at('second.yaml');
    await writeFile(first, kubeconfigText({}), { mode: 0o600 });
    await writeFile(
      second,
      kubeconfigText({
        header: '# users live here\n',
        context: false,
        cluster: false,
        user: 'users:\n- name: dev-user\n  user: {}\n',
      }),
      { mode: 0o600 },
    );
    const firstBefore = await readFile(first, 'utf8');
    const env = { ...brokerEnv(home.dir), KUBECONFIG: `${first}:${second}` };
    const result = await run(
      process.execPath,
      [KUBECRED_CLI, 'install', '--profile', 'tok', '--context', 'dev', '--api-version', 'v1beta1'],
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(first, 'utf8')).toBe(firstBefore);
    const exec = (parse(await readFile(second, 'utf8')) as Kubeconfig).users[0]!.user.exec!;
    expect(exec.apiVersion).toBe('client.authentication.k8s.io/v1beta1');
    const answer = await runKubectl(BUILDS[BUILDS.length - 1]!.path, ['get', '--raw', '/version'], {
      kubeconfig: `${first}:${second}`,
      env: { KUBECRED_HOME: home.dir },
    });
    expect(answer.code, answer.stderr).toBe(0);

    // No file defines the user: it goes into the first file that exists, as kubectl puts new entries.
    const lonely = at('lonely.yaml');
    await writeFile(lonely, kubeconfigText({}), { mode: 0o600 });
    const created = await run(process.execPath, [KUBECRED_CLI, 'install', '--profile', 'tok'], {
      env: { ...brokerEnv(home.dir), KUBECONFIG: `${at('absent.yaml')}:${lonely}` },
    });
    expect(created.code, created.stderr).toBe(0);
    expect((parse(await readFile(lonely, 'utf8')) as Kubeconfig).users.map((u) => u.name)).toEqual(['dev-user']);
  });

  it('refuses to drop credentials a user has unless told to, and names what to do', async () => {
    const file = at('has-token');
    await writeFile(file, kubeconfigText({ user: `users:\n- name: dev-user\n  user:\n    token: ${TOKEN}-old\n` }), {
      mode: 0o600,
    });
    const before = await readFile(file, 'utf8');
    const refused = await cli(['install', '--profile', 'tok', '--kubeconfig', file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(`user "dev-user" in ${file}:\\d+ has credentials of its own.*kubecred import.*--replace`),
    );
    expect(refused.stderr).not.toContain(TOKEN);
    expect(await readFile(file, 'utf8')).toBe(before);
    const replaced = await cli(['install', '--profile', 'tok', '--kubeconfig', file, '--replace']);
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(await readFile(file, 'utf8')).not.toContain(`${TOKEN}-old`);
    const backup = /backup of the file as it was: (\S+)/.exec(replaced.stderr)?.[1];
    expect(backup).toBeDefined();
    expect((await stat(backup!)).mode & 0o777).toBe(0o600);
    expect(await readFile(backup!, 'utf8')).toBe(before);
    expect((await kubectl(BUILDS[0]!.path, file)).code).toBe(0);
  });

  it('writes a symlinked kubeconfig (dotfiles) through its link', async () => {
    const target = at('dotfiles-config');
    const link = at('linked-config');
    await writeFile(target, kubeconfigText({ user: 'users:\n- name: dev-user\n  user: {}\n' }), { mode: 0o600 });
    await symlink(target, link);
    const result = await cli(['install', '--profile', 'tok', '--kubeconfig', link]);
    expect(result.code, result.stderr).toBe(0);
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readFile(target, 'utf8')).toMatch(/^    exec:\n      apiVersion: client.authentication.k8s.io\/v1\n/m);
  });

  it('explains a missing context and a file that does not parse, changing nothing', async () => {
    const file = at('no-context');
    await writeFile(file, kubeconfigText({ context: false }));
    const missing = await cli(['install', '--profile', 'tok', '--kubeconfig', file]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no current-context');
    const wrong = await cli(['install', '--profile', 'tok', '--kubeconfig', file, '--context', 'nope']);
    expect(wrong.stderr).toContain('no context "nope"');
    const broken = at('broken');
    await writeFile(broken, 'apiVersion: v1\nusers:\n- name: a\n   user: {}\n');
    const bad = await cli(['install', '--profile', 'tok', '--kubeconfig', broken]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(new RegExp(`${broken}:\\d+: not valid YAML`));
    expect(await readFile(broken, 'utf8')).toBe('apiVersion: v1\nusers:\n- name: a\n   user: {}\n');
    const usage = await cli(['install', '--context', 'dev']);
    expect(usage.code).toBe(2);
    const unnameable = await cli(['install', '--profile', 'Prod EU', '--kubeconfig', broken]);
    expect(unnameable.code).toBe(2);
    expect(unnameable.stderr).toContain('a profile name is 1-63 lower-case letters');
  });

  it('refuses a profile config.yaml does not have (a typo), naming the ones it has; --force points at it anyway', async () => {
    const file = at('typo');
    await writeFile(file, kubeconfigText({}));
    const before = await readFile(file, 'utf8');
    const typo = await cli(['install', '--profile', 'tokk', '--kubeconfig', file]);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('there is no profile "tokk"');
    expect(typo.stderr).toContain('(profiles: tok)');
    expect(typo.stderr).toContain('kubecred profile add tokk');
    expect(await readFile(file, 'utf8')).toBe(before);
    const forced = await cli(['install', '--profile', 'later', '--kubeconfig', file, '--force', '--replace']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toContain('note: there is no profile "later"');
    expect(await readFile(file, 'utf8')).toContain('later');
  });
});
