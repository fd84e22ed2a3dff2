import { access, constants, readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { minimatch } from 'minimatch';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';

interface BuilderConfig {
  files: string[];
  extraResources: Array<{ from: string; to: string }>;
  linux: { icon: string; maintainer: string };
  deb: { afterInstall: string; afterRemove: string };
  mac: { icon: string };
  win: { icon: string };
}

async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const files = await Promise.all(
    entries.map((entry) => {
      const full = path.join(dir, entry.name);
      return entry.isDirectory() ? walk(full) : Promise.resolve([full]);
    }),
  );
  return files.flat();
}

/** The repository files electron-builder's `files` patterns take into app.asar (a "!" pattern drops). */
async function asarFiles(config: BuilderConfig): Promise<string[]> {
  const candidates = [
    ...(await walk(path.join(REPO_ROOT, 'dist'))),
    ...(await walk(path.join(REPO_ROOT, 'bin'))),
    ...(await walk(path.join(REPO_ROOT, 'src'))),
    ...(await walk(path.join(REPO_ROOT, 'test'))),
    path.join(REPO_ROOT, 'package.json'),
  ].map((file) => path.relative(REPO_ROOT, file));
  return candidates.filter((file) => {
    let taken = false;
    for (const pattern of config.files) {
      if (pattern.startsWith('!')) {
        if (minimatch(file, pattern.slice(1))) taken = false;
      } else if (minimatch(file, pattern)) taken = true;
    }
    return taken;
  });
}

/** A PNG's width and height, from its IHDR. */
async function pngSize(file: string): Promise<[number, number]> {
  const bytes = await readFile(file);
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

// Issue 29, item 5 (new-user round 3, N12): a package that could ship. What electron-builder
// would take from this tree, by its own config, and what it must leave out.
describe('the package electron-builder would make', () => {
  it('takes the build, the launchers and package.json into app.asar, and no test build, shim source or test', async () => {
    assertBuilt({ shim: true });
    const config = parse(await readFile(path.join(REPO_ROOT, 'electron-builder.yml'), 'utf8')) as BuilderConfig;
    const files = await asarFiles(config);
    for (const needed of [
      'dist/main/cli/main.js',
      'dist/main/electron/main.js',
      'dist/renderer/index.html',
      'bin/kubecred',
      'package.json',
    ])
      expect(files, needed).toContain(needed);
    const strays = files.filter((file) => /^(dist\/test|dist\/shim|src|test)\//.test(file));
    expect(strays).toEqual([]);
    // The test kubelet alone is 15 MB: it must not ride along.
    expect(files.some((file) => file.includes('kubelet'))).toBe(false);
  });

  it('puts the CLI and the docker credential helper beside the shims, runnable, for each OS', async () => {
    const config = parse(await readFile(path.join(REPO_ROOT, 'electron-builder.yml'), 'utf8')) as BuilderConfig;
    const launchers = config.extraResources.find((r) => r.to === 'bin');
    expect(launchers?.from).toBe('packaging/bin');
    const dir = path.join(REPO_ROOT, 'packaging', 'bin');
    expect((await readdir(dir)).sort()).toEqual([
      'docker-credential-kubecred',
      'docker-credential-kubecred.cmd',
      'kubecred',
      'kubecred.cmd',
    ]);
    for (const script of ['kubecred', 'docker-credential-kubecred']) {
      await access(path.join(dir, script), constants.X_OK);
      expect((await run('sh', ['-n', path.join(dir, script)])).code).toBe(0);
    }
  });

  it('has an app icon for every OS, the deb scripts that put both commands on PATH, and a maintainer with an email', async () => {
    const config = parse(await readFile(path.join(REPO_ROOT, 'electron-builder.yml'), 'utf8')) as BuilderConfig;
    for (const icon of [config.linux.icon, config.mac.icon, config.win.icon])
      expect(await pngSize(path.join(REPO_ROOT, icon))).toEqual([1024, 1024]);
    for (const script of [config.deb.afterInstall, config.deb.afterRemove]) {
      const file = path.join(REPO_ROOT, script);
      expect((await stat(file)).mode & 0o111).not.toBe(0);
      expect((await run('sh', ['-n', file])).code).toBe(0);
      expect(await readFile(file, 'utf8')).toMatch(/docker-credential-kubecred/);
    }
    const pkg = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      author: { email?: string };
    };
    expect(pkg.author.email).toMatch(/^[^@\s]+@[^@\s]+$/);
    expect(config.linux.maintainer).toMatch(/<[^@\s]+@[^@\s]+>$/);
  });
});
