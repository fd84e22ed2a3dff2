import { lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../../src/main/platform/atomicWrite.js';

// Security review 4, D9: an edit through a symlinked config.yaml replaced the link with a file,
// so a guard added in the window never reached the tracked copy.
const onWindows = process.platform === 'win32';

describe('writeFileAtomic', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'atomic-'));
    await mkdir(path.join(dir, 'dotfiles'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  // Wine's node.exe makes no symbolic link lstat sees as one; dotfiles links are a POSIX habit.
  it.skipIf(onWindows)('writes through a symlink to the file it names, which keeps its 0640 mode', async () => {
    const tracked = path.join(dir, 'dotfiles', 'config.yaml');
    await writeFile(tracked, '# mine\nprofiles: []\n', { mode: 0o640 });
    const link = path.join(dir, 'config.yaml');
    await symlink(path.join('dotfiles', 'config.yaml'), link);

    await writeFileAtomic(link, '# mine\nprofiles: [{name: a}]\n', 0o600, { throughLink: true });

    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readFile(tracked, 'utf8')).toBe('# mine\nprofiles: [{name: a}]\n');
    expect((await stat(tracked)).mode & 0o777).toBe(0o640);
  });

  it.skipIf(onWindows)('narrows a linked file that others could read to the mode asked for', async () => {
    const tracked = path.join(dir, 'dotfiles', 'config.yaml');
    await writeFile(tracked, 'profiles: []\n', { mode: 0o644 });
    await symlink(tracked, path.join(dir, 'config.yaml'));
    await writeFileAtomic(path.join(dir, 'config.yaml'), 'profiles: []\n', 0o600, { throughLink: true });
    expect((await stat(tracked)).mode & 0o777).toBe(0o600);
  });

  it("replaces a link with a file unless told to write through it (Kubecred's own files)", async () => {
    const tracked = path.join(dir, 'dotfiles', 'elsewhere');
    await writeFile(tracked, 'theirs\n', { mode: 0o600 });
    await symlink(tracked, path.join(dir, 'last-good.yaml'));
    await writeFileAtomic(path.join(dir, 'last-good.yaml'), 'ours\n');
    expect((await lstat(path.join(dir, 'last-good.yaml'))).isSymbolicLink()).toBe(false);
    expect(await readFile(tracked, 'utf8')).toBe('theirs\n');
  });

  it('writes a plain file with the mode asked for, and leaves no temp file behind', async () => {
    const file = path.join(dir, 'plain.yaml');
    await writeFile(file, 'old\n', { mode: 0o644 });
    await writeFileAtomic(file, 'new\n');
    expect(await readFile(file, 'utf8')).toBe('new\n');
    if (!onWindows) expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readdir(dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});
