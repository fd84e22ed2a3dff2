import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const SCRIPT = path.join(import.meta.dirname, '..', '..', '..', 'scripts', 'folder-graph.mjs');
const run = promisify(execFile);
const trees: string[] = [];

async function tree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'folder-graph-'));
  trees.push(root);
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, 'src', name)), { recursive: true });
    await writeFile(path.join(root, 'src', name), text);
  }
  return root;
}

async function graph(root: string, ...flags: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [SCRIPT, '--root', root, ...flags]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

afterAll(async () => {
  for (const root of trees) await rm(root, { recursive: true, force: true });
});

describe('scripts/folder-graph.mjs', () => {
  it('passes this repository: no two folders of src import each other', async () => {
    const result = await graph(path.join(import.meta.dirname, '..', '..', '..'), '--check');
    expect(result.stderr).toBe('');
    expect(result).toMatchObject({ code: 0, stdout: 'no cycles between folders\n' });
  });

  it('fails on a cycle through three folders, type-only and dynamic imports included, and names the files', async () => {
    const root = await tree({
      'main/core/a.ts': "import type { B } from '../broker/b.js';\nexport type A = B;\n",
      'main/broker/b.ts': "export type B = number;\nexport const load = () => import('../server/s.js');\n",
      'main/server/s.ts': "export { type A } from '../core/a.js';\n",
      'main/server/t.ts': "import { x } from '../../shared/x.js';\nexport const y = x;\n",
      'shared/x.ts': 'export const x = 1;\n',
    });
    const result = await graph(root);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('main/server -> shared  (1)');
    expect(result.stderr).toContain('cycle: main/broker, main/core, main/server');
    expect(result.stderr).toContain('main/broker -> main/server: src/main/broker/b.ts');
    expect(result.stderr).not.toContain('shared');
  });

  it('counts a subfolder as its top folder and root files as "main"', async () => {
    const root = await tree({
      'main/host.ts': "import { p } from './providers/oidc/p.js';\nexport const h = p;\n",
      'main/providers/oidc/p.ts': "import { q } from '../exec/q.js';\nexport const p = q;\n",
      'main/providers/exec/q.ts': 'export const q = 1;\n',
    });
    const result = await graph(root);
    expect(result).toMatchObject({ code: 0 });
    expect(result.stdout.split('\n').filter((line) => line.includes('->'))).toEqual(['main -> main/providers  (1)']);
  });
});
