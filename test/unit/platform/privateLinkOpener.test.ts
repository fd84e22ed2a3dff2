import { mkdir, mkdtemp, readdir, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PrivateLinkOpener, redirectPage } from '../../../src/main/platform/privateLinkOpener.js';

// File modes are POSIX: on Windows the run dir's ACL (ownerOnlyAcl) keeps other users out.
const POSIX_MODES = process.platform !== 'win32';

const SECRET_URL = 'http://127.0.0.1:4711/#token=planted-link-token-4c1f';

function recorder(answer = true) {
  const opened: string[] = [];
  return { opened, opener: { open: async (url: string) => (opened.push(url), answer) } };
}

describe('PrivateLinkOpener', () => {
  it('hands the browser a 0600 page in a 0700 dir, never the secret URL', async () => {
    const dir = path.join(await mkdtemp(path.join(tmpdir(), 'kc-links-')), 'links');
    const { opened, opener } = recorder();
    expect(await new PrivateLinkOpener(opener, dir).open(SECRET_URL)).toBe(true);
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatch(/^file:\/\/.*\/links\/[0-9a-f]{32}\.html$/);
    expect(opened[0]).not.toContain('planted');
    const file = fileURLToPath(opened[0]!);
    if (POSIX_MODES) {
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
    }
    expect(await readFile(file, 'utf8')).toContain(`content="0;url=${SECRET_URL}"`);
  });

  it('removes the page at once when no browser opened it, and after its lifetime otherwise', async () => {
    const dir = path.join(await mkdtemp(path.join(tmpdir(), 'kc-links-')), 'links');
    expect(await new PrivateLinkOpener(recorder(false).opener, dir).open(SECRET_URL)).toBe(false);
    expect(await readdir(dir)).toEqual([]);
    await new PrivateLinkOpener(recorder().opener, dir, 50).open(SECRET_URL);
    expect(await readdir(dir)).toHaveLength(1);
    await expect.poll(() => readdir(dir), { timeout: 2_000 }).toEqual([]);
  });

  it.runIf(POSIX_MODES)('refuses a links dir that others can write to', async () => {
    const dir = path.join(await mkdtemp(path.join(tmpdir(), 'kc-links-')), 'links');
    await mkdir(dir, { mode: 0o777 });
    const { chmod } = await import('node:fs/promises');
    await chmod(dir, 0o777);
    const { opened, opener } = recorder();
    await expect(new PrivateLinkOpener(opener, dir).open(SECRET_URL)).rejects.toThrow(/not a private directory/);
    expect(opened).toEqual([]);
  });

  it('escapes the URL, so a hostile authorization URL cannot break out of the page', () => {
    const page = redirectPage('https://idp.example/a?x="><script>alert(1)</script>&y=1');
    expect(page).not.toContain('<script>');
    expect(page).toContain('&quot;&gt;&lt;script&gt;');
    expect(page).toContain("default-src 'none'");
  });
});
