import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { KUBECRED_CLI, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

describe('kubecred profile add', () => {
  let home: TempHome;
  const { cli } = callersFor(() => home.dir);

  beforeAll(async () => {
    assertBuilt();
    home = await makeTempHome();
    await writeFile(
      path.join(home.dir, 'config.yaml'),
      '# team clusters, see wiki\nprofiles:\n  - name: old # keep me\n    provider: static\n',
    );
  });
  afterAll(async () => home?.cleanup());

  it('adds profiles from flags for each provider, keeping comments, and lists them', async () => {
    const adds = [
      [
        'sso',
        '--provider',
        'oidc',
        '--issuer',
        'https://id.example.com',
        '--client-id',
        'kubernetes',
        '--scope',
        'openid',
        '--scope',
        'email',
      ],
      [
        'os',
        '--provider',
        'keystone',
        '--auth-url',
        'https://keystone.example.com/v3',
        '--username',
        'ada',
        '--user-domain-name',
        'Default',
        '--project-name',
        'dev',
        '--project-domain-name',
        'Default',
      ],
      ['aws', '--provider', 'eks', '--cluster-id', 'prod', '--region', 'eu-west-1'],
      ['wrapped', '--provider', 'exec', '--command', '/usr/bin/true', '--arg', 'x'],
    ];
    for (const add of adds) {
      const result = await cli(['profile', 'add', ...add]);
      expect(result.code, result.stderr).toBe(0);
    }
    const text = await readFile(path.join(home.dir, 'config.yaml'), 'utf8');
    expect(text).toContain('# team clusters, see wiki');
    expect(text).toContain('name: old # keep me');
    const listed = JSON.parse((await cli(['profile', 'list', '-o', 'json'])).stdout) as Array<{
      name: string;
      provider: string;
    }>;
    expect(listed.map((p) => `${p.name}:${p.provider}`)).toEqual([
      'old:static',
      'sso:oidc',
      'os:keystone',
      'aws:eks',
      'wrapped:exec',
    ]);
  });

  it('explains a bad flag and changes nothing', async () => {
    const before = await readFile(path.join(home.dir, 'config.yaml'), 'utf8');
    const bad = await cli(['profile', 'add', 'x', '--provider', 'oidc', '--issuer', 'not a url', '--client-id', 'k']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('issuer');
    const secret = await cli(['profile', 'add', 'y', '--provider', 'keystone', '--password', 'hunter2']);
    expect(secret.code).toBe(2);
    expect(secret.stderr).not.toContain('hunter2');
    expect(await readFile(path.join(home.dir, 'config.yaml'), 'utf8')).toBe(before);
  });

  it('asks for the provider and its fields in a terminal', async () => {
    const typed = `(sleep 1; printf 'eks\\r'; sleep 0.5; printf 'staging\\r'; sleep 0.5; printf 'us-east-2\\r') | script -q -e -c "${process.execPath} ${KUBECRED_CLI} profile add asked" /dev/null`;
    const session = await run('bash', ['-c', typed], { env: brokerEnv(home.dir) });
    expect(session.code, session.stdout).toBe(0);
    expect(session.stdout).toContain('Provider for asked');
    const listed = JSON.parse((await cli(['profile', 'list', '-o', 'json'])).stdout) as Array<{
      name: string;
      provider: string;
    }>;
    expect(listed.find((p) => p.name === 'asked')?.provider).toBe('eks');
    expect(await readFile(path.join(home.dir, 'config.yaml'), 'utf8')).toMatch(
      /name: asked\n\s+provider: eks\n\s+clusterId: staging\n\s+region: us-east-2/,
    );
  });
});
