import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfig } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

// New-user finding N15: a mistyped config.yaml gave exit 0 and "profiles: none yet … import",
// an invitation to import on top of a file that only needs its lines fixed.
const MISTYPED = `profiles:
  - name: demo
    provider: statc
  - name: sso
    provider: oidc
    issuer: https://id.example.com
    clientid: kubectl
`;

describe('the CLI given a config.yaml with problems', () => {
  let home: TempHome;
  const { cli } = callersFor(() => home.dir);

  beforeAll(async () => {
    assertBuilt();
    home = await makeTempHome();
    await writeConfig(home.dir, MISTYPED);
  });
  afterAll(async () => home?.cleanup());

  it.each([[['status']], [['profile', 'list']]])(
    'kubecred %j fails, lists the problems and says to fix them rather than to import',
    async (args) => {
      const result = await cli(args);
      const said = result.stdout + result.stderr;
      expect(result.code, said).toBe(1);
      expect(said).toContain('provider "statc" is not one of');
      expect(said).toContain('(did you mean "clientId"?)');
      expect(said).toContain('fix those lines, then run this again');
      expect(said).not.toContain('none yet');
      expect(said).not.toContain('kubecred import');
    },
  );

  it('kubecred status -o json fails too, so a script notices', async () => {
    const result = await cli(['status', '-o', 'json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ configError: expect.stringContaining('statc') });
  });

  it('kubecred doctor keeps the later lines of the problem under its column', async () => {
    const result = await cli(['doctor']);
    const lines = result.stdout.split('\n');
    const first = lines.findIndex((line) => line.includes('provider "statc"'));
    expect(first, result.stdout).toBeGreaterThanOrEqual(0);
    const column = lines[first]!.indexOf('config.yaml:');
    const next = lines.slice(first + 1, first + 4);
    expect(next.find((line) => line.includes('clientId is missing'))?.search(/\S/)).toBe(column);
    expect(next.find((line) => line.includes('unknown key "clientid"'))?.search(/\S/)).toBe(column);
    expect(next.find((line) => line.includes('fix: fix the lines named above'))?.search(/\S/)).toBe(column);
  });
});
