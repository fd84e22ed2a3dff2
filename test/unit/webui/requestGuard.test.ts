import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkOrigin, SECURITY_HEADERS } from '../../../src/main/webui/requestGuard.js';
import { readStatic } from '../../../src/main/webui/staticFiles.js';

describe('checkOrigin', () => {
  it('admits our Host with no Origin, or our own Origin', () => {
    expect(checkOrigin({ host: '127.0.0.1:5000' }, 5000)).toBeNull();
    expect(
      checkOrigin({ host: '127.0.0.1:5000', origin: 'http://127.0.0.1:5000', 'sec-fetch-site': 'same-origin' }, 5000),
    ).toBeNull();
    expect(checkOrigin({ host: '127.0.0.1:5000', 'sec-fetch-site': 'none' }, 5000)).toBeNull();
  });

  it('refuses other Hosts: DNS rebinding, localhost, another port', () => {
    for (const host of ['evil.example:5000', 'localhost:5000', '127.0.0.1:5001', '127.0.0.1', undefined]) {
      expect(checkOrigin({ host }, 5000)).toMatchObject({ status: 421 });
    }
  });

  it('refuses foreign Origins and cross-site fetches', () => {
    for (const origin of ['http://evil.example', 'http://localhost:5000', 'https://127.0.0.1:5000', 'null']) {
      expect(checkOrigin({ host: '127.0.0.1:5000', origin }, 5000)).toMatchObject({ status: 403 });
    }
    expect(checkOrigin({ host: '127.0.0.1:5000', 'sec-fetch-site': 'cross-site' }, 5000)).toMatchObject({
      status: 403,
    });
    expect(checkOrigin({ host: '127.0.0.1:5000', 'sec-fetch-site': 'same-site' }, 5000)).toMatchObject({ status: 403 });
  });
});

describe('checkOrigin: the page opened from the file:// redirect page', () => {
  const navigation = { host: '127.0.0.1:5000', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' };

  it('admits a top-level navigation to the shell from another site (Chromium labels file:// so)', () => {
    for (const path of ['/', '/index.html'])
      expect(checkOrigin({ ...navigation, 'sec-fetch-dest': 'document' }, 5000, { method: 'GET', path })).toBeNull();
  });

  it('still refuses the API, other files, frames, other methods and foreign Hosts from another site', () => {
    const refused = [
      [
        { ...navigation, 'sec-fetch-dest': 'document' },
        { method: 'GET', path: '/api/state' },
      ],
      [
        { ...navigation, 'sec-fetch-dest': 'document' },
        { method: 'GET', path: '/assets/index.js' },
      ],
      [
        { ...navigation, 'sec-fetch-dest': 'document' },
        { method: 'POST', path: '/' },
      ],
      [
        { ...navigation, 'sec-fetch-dest': 'iframe' },
        { method: 'GET', path: '/' },
      ],
      [
        { ...navigation, 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'script' },
        { method: 'GET', path: '/' },
      ],
      [
        { ...navigation, 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty' },
        { method: 'GET', path: '/' },
      ],
    ] as const;
    for (const [headers, target] of refused) expect(checkOrigin(headers, 5000, target)).toMatchObject({ status: 403 });
    expect(
      checkOrigin({ ...navigation, host: 'evil.example:5000', 'sec-fetch-dest': 'document' }, 5000, {
        method: 'GET',
        path: '/',
      }),
    ).toMatchObject({ status: 421 });
  });
});

describe('security headers and static files', () => {
  it('forbids other origins and caching', () => {
    expect(SECURITY_HEADERS['content-security-policy']).toMatch(/^default-src 'none'; script-src 'self';/);
    expect(SECURITY_HEADERS['content-security-policy']).not.toContain('unsafe');
    expect(SECURITY_HEADERS['cache-control']).toBe('no-store');
  });

  it('serves only known files under the root', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kc-static-'));
    const root = join(dir, 'renderer');
    await mkdir(join(root, 'assets'), { recursive: true });
    await writeFile(join(root, 'index.html'), '<p>hi</p>');
    await writeFile(join(root, 'assets', 'a.js'), 'x');
    await writeFile(join(dir, 'secret.html'), 'no');
    expect((await readStatic(root, '/'))?.type).toContain('text/html');
    expect((await readStatic(root, '/assets/a.js'))?.body.toString()).toBe('x');
    expect(await readStatic(root, '/../secret.html')).toBeUndefined();
    expect(await readStatic(root, '/%2e%2e/secret.html')).toBeUndefined();
    expect(await readStatic(root, '/%E0%A4%A')).toBeUndefined();
    expect(await readStatic(root, '/missing.js')).toBeUndefined();
  });
});
