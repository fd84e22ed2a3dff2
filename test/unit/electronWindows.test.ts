import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_ORIGIN, isAllowedNavigation, windowOpenDecision } from '../../src/main/electron/appOrigin.js';
import { appResponseHeaders, resolveAppAsset } from '../../src/main/electron/appProtocol.js';
import { buildCsp, windowOptions } from '../../src/main/electron/windowOptions.js';

const cspMap = (csp: string) => new Map(csp.split('; ').map((d) => { const [name = '', ...sources] = d.split(' '); return [name, sources]; }));

describe('windowOptions', () => {
  it.each(['main', 'prompt'] as const)('locks down the %s window', (kind) => {
    const prefs = windowOptions(kind, '/app/preload.cjs').webPreferences;
    expect(prefs).toMatchObject({ preload: '/app/preload.cjs', contextIsolation: true, sandbox: true, nodeIntegration: false, nodeIntegrationInSubFrames: false, nodeIntegrationInWorker: false, webSecurity: true, allowRunningInsecureContent: false, webviewTag: false });
  });
  it('sizes a resizable main window and a small fixed prompt that stays on top', () => {
    const main = windowOptions('main', 'p');
    const prompt = windowOptions('prompt', 'p');
    expect(main.resizable).toBe(true);
    expect(prompt).toMatchObject({ resizable: false, alwaysOnTop: true, skipTaskbar: true });
    expect((prompt.width ?? 0) * (prompt.height ?? 0)).toBeLessThan((main.width ?? 0) * (main.height ?? 0));
    expect(main.alwaysOnTop).toBeUndefined();
    expect(main.show).toBe(false);
  });
});

describe('buildCsp', () => {
  it('is self-only by default, with no inline script, no eval and no framing', () => {
    const csp = cspMap(buildCsp());
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(buildCsp()).not.toMatch(/unsafe|\*/);
  });
  it('adds extra sources, dropping a directive\'s \'none\'', () => {
    const csp = cspMap(buildCsp({ 'connect-src': ['http://127.0.0.1:4000'], 'frame-src': ["'self'"] }));
    expect(csp.get('connect-src')).toEqual(["'self'", 'http://127.0.0.1:4000']);
    expect(csp.get('frame-src')).toEqual(["'self'"]);
  });
  it.each([["'unsafe-inline'"], ["'unsafe-eval'"], ['*'], ['https:'], ["'self'; script-src *"], ['a b']])('refuses %s', (source) => {
    expect(() => buildCsp({ 'script-src': [source] })).toThrow(/refusing CSP source/);
  });
  it('refuses a directive name that could inject', () => {
    expect(() => buildCsp({ 'script-src *;': ["'self'"] })).toThrow(/directive name/);
  });
});

describe('isAllowedNavigation', () => {
  it('allows pages of the app itself', () => {
    expect(isAllowedNavigation(`${APP_ORIGIN}/`, APP_ORIGIN)).toBe(true);
    expect(isAllowedNavigation(`${APP_ORIGIN}/prompt/p1?x=1#y`, APP_ORIGIN)).toBe(true);
  });
  it.each([
    'https://evil.example/',
    'kubecred-app://ui.evil.example/',
    'kubecred-app://other/',
    'kubecred-app://user:pw@ui/',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'http://127.0.0.1:8000/',
    'not a url',
    '',
  ])('refuses %s', (url) => expect(isAllowedNavigation(url, APP_ORIGIN)).toBe(false));
  it('works for an http loopback origin too (headless dev), port included', () => {
    expect(isAllowedNavigation('http://127.0.0.1:5173/x', 'http://127.0.0.1:5173')).toBe(true);
    expect(isAllowedNavigation('http://127.0.0.1:5174/x', 'http://127.0.0.1:5173')).toBe(false);
  });
});

describe('windowOpenDecision', () => {
  it('never opens a window; https and loopback http go to the system browser', () => {
    expect(windowOpenDecision('https://login.example.com/auth?x=1')).toEqual({ action: 'deny', openExternally: 'https://login.example.com/auth?x=1' });
    expect(windowOpenDecision('http://127.0.0.1:8000/cb')).toEqual({ action: 'deny', openExternally: 'http://127.0.0.1:8000/cb' });
  });
  it.each(['http://example.com/', 'file:///etc/passwd', 'javascript:alert(1)', 'smb://host/share', 'https://u:p@example.com/', 'nope'])('drops %s', (url) => {
    expect(windowOpenDecision(url)).toEqual({ action: 'deny' });
  });
});

describe('resolveAppAsset', () => {
  const root = path.resolve('/opt/kubecred/renderer');
  it('serves files under the renderer dir and index.html for routes', () => {
    expect(resolveAppAsset(`${APP_ORIGIN}/assets/app.js`, root)).toBe(path.join(root, 'assets', 'app.js'));
    expect(resolveAppAsset(`${APP_ORIGIN}/`, root)).toBe(path.join(root, 'index.html'));
    expect(resolveAppAsset(`${APP_ORIGIN}/prompt/p1`, root)).toBe(path.join(root, 'index.html'));
  });
  it('keeps plain and encoded dot segments inside the root', () => {
    expect(resolveAppAsset(`${APP_ORIGIN}/../../etc/passwd.js`, root)).toBe(path.join(root, 'etc', 'passwd.js'));
    expect(resolveAppAsset(`${APP_ORIGIN}/%2e%2e/%2e%2e/etc/x.js`, root)).toBe(path.join(root, 'etc', 'x.js'));
  });
  it.each([
    `${APP_ORIGIN}/..%2f..%2fsecret.json`,
    `${APP_ORIGIN}/a%5c..%5c..%5cx.js`,
    `${APP_ORIGIN}/%00.js`,
    `${APP_ORIGIN}/bad%zz.js`,
    `${APP_ORIGIN}/run/client-secret.key`,
    'kubecred-app://other/assets/app.js',
    'https://ui/assets/app.js',
  ])('refuses %s', (url) => expect(resolveAppAsset(url, root)).toBeUndefined());
  it('sends the strict CSP and the right type with every file', () => {
    const headers = appResponseHeaders(path.join(root, 'index.html'));
    expect(headers['content-type']).toBe('text/html; charset=utf-8');
    expect(headers['content-security-policy']).toBe(buildCsp());
    expect(headers['x-content-type-options']).toBe('nosniff');
  });
});
