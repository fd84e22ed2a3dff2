import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const TOKEN = 'kc-undo-token-5e1d9a7c3b';
const kubeconfigText = (users: string) =>
  `apiVersion: v1\nkind: Config\nclusters:\n- name: lab\n  cluster: {server: 'https://127.0.0.1:6443'}\ncontexts:\n- name: lab\n  context: {cluster: lab, user: lab-admin}\ncurrent-context: lab\nusers:\n${users}`;
const TOKEN_USER = `- name: lab-admin # the admin token\n  user:\n    token: ${TOKEN}\n`;
const EXEC_USER = `- name: lab-sso\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: /usr/bin/true\n      args: [get-token]\n`;

// New-user finding 9: an import could only be undone by copying the backup back by hand; its
// profiles and secrets stayed, a second import made *-2 duplicates, and backups holding
// plaintext piled up unseen.
describe('kubecred import --undo and the backups it keeps', () => {
  let home: TempHome;
  let broker: TestBroker;
  let kubeconfig: string;
  const { cli } = callersFor(
    () => home.dir,
    () => ({ KUBECONFIG: kubeconfig }),
  );
  const backupDir = () => path.join(home.dir, 'state', 'kubeconfig-backups');
  const configYaml = () => readFile(path.join(home.dir, 'config.yaml'), 'utf8');

  beforeAll(async () => {
    assertBuilt();
    home = await makeTempHome();
    kubeconfig = path.join(home.dir, 'kubeconfig');
    await writeConfig(home.dir, 'profiles:\n  - { name: mine, provider: static }\n');
    broker = await startTestBroker(home.dir);
  });
  afterAll(async () => {
    await broker?.stop();
    await home?.cleanup();
  });

  it('refuses to put plaintext back unless asked, and to overwrite a kubeconfig edited since; then restores it byte for byte', async () => {
    const original = kubeconfigText(TOKEN_USER);
    await writeFile(kubeconfig, original, { mode: 0o600 });
    const imported = await cli(['import']);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain('to take this import back: kubecred import --undo');
    const afterImport = await readFile(kubeconfig, 'utf8');
    expect(afterImport).not.toContain(TOKEN);
    expect(await configYaml()).toContain('lab-admin');

    const doctor = await cli(['doctor']);
    expect(doctor.stdout).toMatch(
      /WARN +backups +kubeconfig backups: 1 backup still holds plaintext credentials: .*\(lab-admin\)/,
    );
    expect(doctor.stdout).not.toContain(TOKEN);

    const unasked = await cli(['import', '--undo']);
    expect(unasked.code).toBe(1);
    expect(unasked.stderr).toContain('puts plaintext credentials back into the kubeconfig (users lab-admin in');
    expect(unasked.stderr).toContain('kubecred import --undo --plaintext');
    expect(await readFile(kubeconfig, 'utf8')).toBe(afterImport);

    await writeFile(kubeconfig, `${afterImport}# a context I added since\n`);
    const edited = await cli(['import', '--undo', '--plaintext']);
    expect(edited.code).toBe(1);
    expect(edited.stderr).toContain('changed after the import');
    expect(edited.stderr).toContain('nothing was changed');
    await writeFile(kubeconfig, afterImport);

    const undone = await cli(['import', '--undo', '--plaintext']);
    expect(undone.code, undone.stderr).toBe(0);
    expect(undone.stderr).toMatch(/removed profile lab-admin and 1 stored secret/);
    expect(await readFile(kubeconfig, 'utf8')).toBe(original);
    const config = await configYaml();
    expect(config).not.toContain('lab-admin');
    expect(config).toContain('name: mine');
    // The backup held the token a second time: it went with the undo, and so did the record.
    expect(await readdir(backupDir())).toEqual([]);
    const again = await cli(['import', '--undo']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('there is no import to undo');
    // Importing again gets the same name, not lab-admin-2: nothing of the first import is left.
    const reimported = await cli(['import']);
    expect(reimported.code, reimported.stderr).toBe(0);
    expect(reimported.stderr).toContain('profile lab-admin:');
    const secret = await cli(['secret', 'list', 'lab-admin']);
    expect(secret.stdout).toContain('token');
  });

  it('undoes an import of wrapped plugins without asking (no plaintext moved), and prunes backups', async () => {
    const original = kubeconfigText(EXEC_USER);
    await writeFile(kubeconfig, original, { mode: 0o600 });
    const imported = await cli(['import']);
    expect(imported.code, imported.stderr).toBe(0);
    const undone = await cli(['import', '--undo']);
    expect(undone.code, undone.stderr).toBe(0);
    expect(await readFile(kubeconfig, 'utf8')).toBe(original);
    expect(await configYaml()).not.toContain('lab-sso');

    const pruned = await cli(['import', '--prune-backups']);
    expect(pruned.code).toBe(0);
    expect(pruned.stderr).toMatch(/deleted 1 kubeconfig backup /);
    expect(await readdir(backupDir())).toEqual([]);
    const doctor = await cli(['doctor']);
    expect(doctor.stdout).toMatch(/ok +backups +kubeconfig backups: none kept/);
  });
});
