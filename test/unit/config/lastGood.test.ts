import { lstat, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigSource, LAST_GOOD_CONFIG, loadServedConfig } from '../../../src/main/config/configSource.js';

// New-user finding 19: a broker started on a broken config.yaml served nothing.
describe('the last good config.yaml', () => {
  let dir: string;
  let file: string;
  let stateDir: string;
  let lastGood: string;
  const good = '# mine\nprofiles:\n  - name: demo\n    provider: static\n';
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'kc-lastgood-'));
    file = path.join(dir, 'config.yaml');
    stateDir = path.join(dir, 'state');
    lastGood = path.join(stateDir, LAST_GOOD_CONFIG);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('is the checked text, 0600 even when config.yaml is 0644, and serves a broker started on a broken file', async () => {
    await writeFile(file, good, { mode: 0o644 });
    await new ConfigSource(file, lastGood).current();
    expect(await readFile(lastGood, 'utf8')).toBe(good);
    // File modes are POSIX: on Windows the home's ACL (ownerOnlyAcl) keeps other users out.
    if (process.platform !== 'win32') expect((await stat(lastGood)).mode & 0o777).toBe(0o600);

    await writeFile(file, 'profiles:\n  - name: demo\n    provder: static\n');
    const restarted = await new ConfigSource(file, lastGood).current();
    expect(restarted.config.profiles.map((p) => p.name)).toEqual(['demo']);
    expect(restarted.error).toContain('unknown key "provder"');
    expect(await readFile(lastGood, 'utf8')).toBe(good);
    expect(await loadServedConfig(file, stateDir)).toMatchObject({
      config: { profiles: [{ name: 'demo' }] },
      error: expect.stringContaining('provder'),
    });
  });

  it('replaces a symlink planted at its path instead of writing through it', async () => {
    await mkdir(stateDir, { recursive: true });
    const target = path.join(dir, 'elsewhere.txt');
    await writeFile(target, 'untouched');
    await symlink(target, lastGood);
    await writeFile(file, good);
    await new ConfigSource(file, lastGood).current();
    expect(await readFile(target, 'utf8')).toBe('untouched');
    expect((await lstat(lastGood)).isSymbolicLink()).toBe(false);
    expect(await readFile(lastGood, 'utf8')).toBe(good);
  });
});
