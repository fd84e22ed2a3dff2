import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROUTE_PATTERNS, ROUTES } from '../../../src/shared/api/routes.js';
import { exact } from '../../../src/main/server/brokerRoutes.js';

const SRC = path.join(import.meta.dirname, '..', '..', '..', 'src');

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && /\.tsx?$/.test(e.name)).map((e) => path.join(e.parentPath, e.name));
}

describe("the broker API's paths: one source", () => {
  it('each builder makes a path its server pattern matches, names decoded back as given', () => {
    const name = 'team a/b%';
    expect(ROUTE_PATTERNS.secret.exec(ROUTES.secret(name, 'token'))?.slice(1).map(decodeURIComponent)).toEqual([
      name,
      'token',
    ]);
    expect(ROUTE_PATTERNS.secrets.exec(ROUTES.secrets(name))?.slice(1).map(decodeURIComponent)).toEqual([name]);
    for (const action of ['login', 'logout', 'refresh'] as const)
      expect(
        ROUTE_PATTERNS.profileAction.exec(ROUTES.profileAction(name, action))?.slice(1).map(decodeURIComponent),
      ).toEqual([name, action]);
    expect(ROUTE_PATTERNS.profileMfa.exec(ROUTES.profileAction(name, 'mfa'))?.slice(1).map(decodeURIComponent)).toEqual(
      [name],
    );
    expect(
      ROUTE_PATTERNS.profileLoginSecret
        .exec(ROUTES.profileAction(name, 'login-secret'))
        ?.slice(1)
        .map(decodeURIComponent),
    ).toEqual([name]);
    for (const action of ['login', 'logout'] as const)
      expect(
        ROUTE_PATTERNS.tokenAction.exec(ROUTES.tokenAction(name, action))?.slice(1).map(decodeURIComponent),
      ).toEqual([name, action]);
    for (const fixed of [ROUTES.unlock, ROUTES.lock, ROUTES.tokens, ROUTES.stop, ROUTES.webUiLink])
      expect(exact(fixed).test(fixed)).toBe(true);
  });

  it('no other file of src spells a /v1 path', async () => {
    const spelled: string[] = [];
    for (const file of await sourceFiles(SRC)) {
      if (file.endsWith(path.join('shared', 'api', 'routes.ts'))) continue;
      const text = await readFile(file, 'utf8');
      // Quoted, templated or in a regular expression; comments may name a route.
      const code = text.replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '');
      if (/['"`]\/v1\/|\\\/v1\\\//.test(code)) spelled.push(path.relative(SRC, file));
    }
    expect(spelled).toEqual([]);
  });
});
