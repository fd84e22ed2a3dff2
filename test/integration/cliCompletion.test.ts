import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, writeConfig } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { REPO_ROOT, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

// New-user finding N29: `kubecred completion bash` was an unknown command.
describe('kubecred completion', () => {
  let home: TempHome;
  let bashScript: string;
  const { cli } = callersFor(() => home.dir);

  /** What bash offers for the words typed so far (the last one partial), with the script sourced. */
  async function complete(typed: string): Promise<string[]> {
    const words = typed.split(' ');
    const program = [
      `source ${JSON.stringify(bashScript)}`,
      `COMP_WORDS=(${words.map((word) => JSON.stringify(word)).join(' ')})`,
      `COMP_CWORD=${words.length - 1}`,
      '_kubecred',
      'printf "%s\\n" "${COMPREPLY[@]}"',
    ].join('\n');
    const result = await run('bash', ['-c', program], {
      env: brokerEnv(home.dir, { PATH: `${path.join(REPO_ROOT, 'bin')}:${process.env.PATH ?? ''}` }),
    });
    expect(result.code, result.stderr).toBe(0);
    return result.stdout.split('\n').filter(Boolean).sort();
  }

  beforeAll(async () => {
    assertBuilt();
    home = await makeTempHome();
    await writeConfig(
      home.dir,
      'profiles:\n  - name: demo\n    provider: static\n  - name: sso\n    provider: oidc\n    issuer: https://id.example.com\n    clientId: kubectl\n',
    );
    const generated = await cli(['completion', 'bash']);
    expect(generated.code, generated.stderr).toBe(0);
    bashScript = path.join(home.dir, 'kubecred.bash');
    await writeFile(bashScript, generated.stdout);
  });
  afterAll(async () => home?.cleanup());

  it('prints a bash script that parses and registers itself for kubecred', async () => {
    expect((await run('bash', ['-n', bashScript])).code).toBe(0);
    const registered = await run('bash', ['-c', `source ${JSON.stringify(bashScript)}; complete -p kubecred`]);
    expect(registered.stdout).toContain('complete -F _kubecred kubecred');
  });

  it.each([
    ['kubecred pro', ['profile', 'proxy']],
    ['kubecred profile ', ['add', 'list', 'rm', 'set']],
    ['kubecred completion ', ['bash', 'fish', 'zsh']],
    ['kubecred install --pr', ['--profile', '--proxy']],
    ['kubecred status -', ['--help', '--output', '-o']],
  ])('%j completes to %j', async (typed, offered) => {
    expect(await complete(typed)).toEqual([...offered].sort());
  });

  it.each([
    ['kubecred login d', ['demo']],
    ['kubecred secret set ', ['demo', 'sso']],
    ['kubecred profile rm s', ['sso']],
    ['kubecred install --profile ', ['demo', 'sso']],
  ])('%j completes the profile names of config.yaml: %j', async (typed, offered) => {
    expect(await complete(typed)).toEqual(offered);
  });

  it('lists profile names one a line with profile list -o name, for scripts and completion', async () => {
    const listed = await cli(['profile', 'list', '-o', 'name']);
    expect(listed).toMatchObject({ code: 0, stdout: 'demo\nsso\n', stderr: '' });
  });

  it('prints a zsh script (bash syntax through bashcompinit) and a fish script naming every command', async () => {
    const zsh = await cli(['completion', 'zsh']);
    expect(zsh.stdout).toMatch(/^#compdef kubecred\n/);
    expect(zsh.stdout).toContain('bashcompinit');
    const zshFile = path.join(home.dir, 'kubecred.zsh');
    await writeFile(zshFile, zsh.stdout);
    expect((await run('bash', ['-n', zshFile])).code).toBe(0);
    const fish = await cli(['completion', 'fish']);
    for (const command of ['status', 'login', 'secret', 'completion'])
      expect(fish.stdout).toContain(`complete -c kubecred -n 'test -z (__kubecred_path)' -a ${command} -d `);
    expect(fish.stdout).toContain("-a '(kubecred profile list -o name 2>/dev/null)'");
  });

  it('refuses a shell it cannot complete for, with the ones it can', async () => {
    const result = await cli(['completion', 'powershell']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('kubecred completion bash|zsh|fish');
  });
});
