import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/main/cli/main.js';

const KUBECONFIG =
  'apiVersion: v1\nkind: Config\nclusters:\n- name: ci\n  cluster: {server: https://127.0.0.1:6443}\ncontexts:\n- name: ci\n  context: {cluster: ci, user: ci}\ncurrent-context: ci\nusers:\n- name: ci\n  user:\n    exec: {apiVersion: client.authentication.k8s.io/v1, command: kubecred, args: [credential, demo]}\n';

// New-user finding 14, while config.yaml is broken: the typo check used to be skipped then.
describe('kubecred install --profile while config.yaml is broken', () => {
  let home: string;
  let kubeconfig: string;
  beforeEach(async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'kc-install-'));
    kubeconfig = path.join(home, 'kubeconfig');
    await writeFile(kubeconfig, KUBECONFIG, { mode: 0o600 });
    await writeFile(path.join(home, 'config.yaml'), 'profiles:\n  - name: demo\n    provder: static\n');
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  async function install(profile: string): Promise<{ code: number; stderr: string }> {
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await runCli(
      ['install', '--profile', profile, '--context', 'ci', '--kubeconfig', kubeconfig, '--replace'],
      { stdin: new PassThrough(), stdout: new PassThrough(), stderr, env: { KUBECRED_HOME: home } },
      { command: 'node', args: ['kubecred'] },
    );
    return { code, stderr: err };
  }

  it('checks the name against the last good copy the broker serves, and writes nothing for a typo', async () => {
    await mkdir(path.join(home, 'state'), { recursive: true });
    await writeFile(
      path.join(home, 'state', 'config.last-good.yaml'),
      'profiles:\n  - name: demo\n    provider: static\n',
    );
    const typo = await install('dmeo');
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('there is no profile "dmeo"');
    expect(typo.stderr).toContain('(profiles: demo)');
    expect(typo.stderr).toContain('config.yaml is invalid, so the last good copy was checked');
    expect(typo.stderr).toContain('kubecred profile add dmeo');
    expect(await readFile(kubeconfig, 'utf8')).toBe(KUBECONFIG);
  });

  it('refuses when there is no last good copy either', async () => {
    const typo = await install('dmeo');
    expect(typo.code).toBe(1);
    expect(await readFile(kubeconfig, 'utf8')).toBe(KUBECONFIG);
  });
});
