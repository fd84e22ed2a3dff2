import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonsOf, writeConfig } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const kubeconfig = (user: string) =>
  `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:6443\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\ncurrent-context: c\nusers:\n- name: u\n  user:\n${user}`;

// New-user finding 19: the backup note claimed old plaintext credentials even when only
// exec users (which hold none) moved.
describe("the note about an import's backup", () => {
  let home: TempHome;
  const { cli } = callersFor(() => home.dir);

  beforeAll(async () => {
    assertBuilt();
    home = await makeTempHome();
    await writeConfig(home.dir, 'profiles: []\n');
  });
  afterAll(async () => {
    for (const pid of await daemonsOf(home.dir)) process.kill(pid, 'SIGTERM');
    await home?.cleanup();
  });

  it('warns about plaintext only when a secret moved out of the file', async () => {
    const execOnly = path.join(home.dir, 'exec.yaml');
    await writeFile(
      execOnly,
      kubeconfig(
        '    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: /bin/true\n      interactiveMode: Never\n',
      ),
      { mode: 0o600 },
    );
    const moved = await cli(['import', '--kubeconfig', execOnly]);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stderr).toMatch(/backup of .*exec\.yaml as it was: .* \(mode 0600\)\n/);
    expect(moved.stderr).not.toContain('plaintext');

    const withToken = path.join(home.dir, 'token.yaml');
    await writeFile(
      withToken,
      kubeconfig('    token: planted-import-token-77aa\n')
        .replaceAll('name: u', 'name: v')
        .replace('user: u', 'user: v'),
      { mode: 0o600 },
    );
    const secret = await cli(['import', '--kubeconfig', withToken]);
    expect(secret.code, secret.stderr).toBe(0);
    expect(secret.stderr).toContain('it still holds the old plaintext credentials');
  });
});
