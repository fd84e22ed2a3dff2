import { describe, expect, it } from 'vitest';
import { isAllowedNavigation, windowOpenDecision } from '../../../src/main/electron/appOrigin.js';
import { promptWindowHeight, windowOptions } from '../../../src/main/electron/windowOptions.js';
import { buildCsp } from '../../../src/main/webui/contentSecurityPolicy.js';
import { SECURITY_HEADERS } from '../../../src/main/webui/requestGuard.js';

/** Where the tray's windows load the page: the broker's loopback web UI. */
const APP_ORIGIN = 'http://127.0.0.1:41234';

const cspMap = (csp: string) =>
  new Map(
    csp.split('; ').map((d) => {
      const [name = '', ...sources] = d.split(' ');
      return [name, sources];
    }),
  );

describe('windowOptions', () => {
  it.each(['main', 'prompt'] as const)('locks down the %s window', (kind) => {
    const prefs = windowOptions(kind, 'kubecred-windows').webPreferences;
    expect(prefs?.preload).toBeUndefined();
    // An in-memory partition: nothing a window holds is written to disk.
    expect(prefs?.partition).not.toMatch(/^persist:/);
    expect(prefs).toMatchObject({
      partition: 'kubecred-windows',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
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
  it("grows a form prompt's window with its fields, up to a small laptop screen", () => {
    expect(promptWindowHeight({ kind: 'pin' })).toBe(340);
    expect(promptWindowHeight({ kind: 'form', fields: [{}] })).toBe(340);
    expect(promptWindowHeight({ kind: 'form', fields: [{}, {}, {}, {}] })).toBe(556);
    expect(promptWindowHeight({ kind: 'form', fields: Array.from({ length: 20 }, () => ({})) })).toBe(640);
    expect(windowOptions('prompt', 'p', 556)).toMatchObject({
      width: 440,
      height: 556,
      minHeight: 556,
      resizable: false,
    });
  });
});

describe("the page's CSP", () => {
  it('is the one the web UI server sends with every answer', () => {
    expect(SECURITY_HEADERS['content-security-policy']).toBe(buildCsp());
  });
  it('is self-only by default, with no inline script, no eval and no framing', () => {
    const csp = cspMap(buildCsp());
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(buildCsp()).not.toMatch(/unsafe|\*/);
  });
  it("adds extra sources, dropping a directive's 'none'", () => {
    const csp = cspMap(buildCsp({ 'connect-src': ['http://127.0.0.1:4000'], 'frame-src': ["'self'"] }));
    expect(csp.get('connect-src')).toEqual(["'self'", 'http://127.0.0.1:4000']);
    expect(csp.get('frame-src')).toEqual(["'self'"]);
  });
  it.each([["'unsafe-inline'"], ["'unsafe-eval'"], ['*'], ['https:'], ["'self'; script-src *"], ['a b']])(
    'refuses %s',
    (source) => {
      expect(() => buildCsp({ 'script-src': [source] })).toThrow(/refusing CSP source/);
    },
  );
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
    'http://127.0.0.1.evil.example:41234/',
    'http://localhost:41234/',
    'https://127.0.0.1:41234/',
    'http://user:pw@127.0.0.1:41234/',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'http://127.0.0.1:8000/',
    'http://127.0.0.1/',
    'not a url',
    '',
  ])('refuses %s', (url) => expect(isAllowedNavigation(url, APP_ORIGIN)).toBe(false));
});

describe('windowOpenDecision', () => {
  it('never opens a window; https and loopback http go to the system browser', () => {
    expect(windowOpenDecision('https://login.example.com/auth?x=1')).toEqual({
      action: 'deny',
      openExternally: 'https://login.example.com/auth?x=1',
    });
    expect(windowOpenDecision('http://127.0.0.1:8000/cb')).toEqual({
      action: 'deny',
      openExternally: 'http://127.0.0.1:8000/cb',
    });
  });
  it.each([
    'http://example.com/',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'smb://host/share',
    'https://u:p@example.com/',
    'nope',
  ])('drops %s', (url) => {
    expect(windowOpenDecision(url)).toEqual({ action: 'deny' });
  });
});
