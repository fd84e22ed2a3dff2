import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { ProfileSummary } from '../../../src/shared/api/status.js';
import {
  LIGHT_TRAY_ICONS,
  STARTING_TOOLTIP,
  TRAY_ICONS,
  menuTemplate,
  startingMenuModel,
  trayIconImage,
  trayIconState,
  trayMenuModel,
  trayTooltip,
  type MenuItemModel,
} from '../../../src/main/electron/trayMenuModel.js';

const now = Date.parse('2026-01-01T00:00:00Z');
const profile = (
  name: string,
  state: ProfileSummary['state'],
  minutesLeft?: number,
  lastError: string | null = null,
): ProfileSummary => ({
  name,
  provider: 'oidc',
  state,
  expiresAt: minutesLeft === undefined ? null : new Date(now + minutesLeft * 60_000).toISOString(),
  lastError,
});
const RESOURCES = path.resolve(import.meta.dirname, '..', '..', '..', 'resources');
/** The IDAT bytes of a PNG (one chunk each, as scripts/make-icons.mjs writes them). */
const pngData = (png: Buffer) => {
  const at = png.indexOf('IDAT');
  return png.subarray(at + 4, at + 4 + png.readUInt32BE(at - 4));
};
const find = (items: readonly MenuItemModel[] | undefined, label: string) => items?.find((i) => i.label === label);

describe('tray icon state', () => {
  it('is locked with no profiles, or none signed in, or only expired credentials', () => {
    expect(trayIconState([], now)).toBe('locked');
    expect(trayIconState([profile('dev', 'idle')], now)).toBe('locked');
    expect(trayIconState([profile('dev', 'ready', -1)], now)).toBe('locked');
  });
  it('is signed in when a profile holds a live credential', () => {
    expect(trayIconState([profile('dev', 'idle'), profile('prod', 'ready', 42)], now)).toBe('signedIn');
    expect(trayIconState([profile('static', 'ready')], now)).toBe('signedIn');
  });
  it('needs attention as soon as any profile failed, whatever the others do', () => {
    expect(trayIconState([profile('prod', 'ready', 42), profile('lab', 'error', undefined, 'boom')], now)).toBe(
      'attention',
    );
  });
  it('maps each state to a distinct template image on macOS', () => {
    const mac = { platform: 'darwin', darkColors: true } as const;
    expect(trayIconImage(trayIconState([profile('lab', 'error')], now), mac)).toBe('trayAttentionTemplate.png');
    expect(new Set(Object.values(TRAY_ICONS)).size).toBe(3);
    for (const image of Object.values(TRAY_ICONS)) expect(image).toMatch(/Template\.png$/);
  });
  // Electron review 2, F4: black icons on dark Linux panels and the dark Windows taskbar.
  it('draws light icons on Linux, and on Windows while it uses dark colours; black (template) on light Windows', () => {
    for (const darkColors of [true, false]) {
      expect(trayIconImage('locked', { platform: 'linux', darkColors })).toBe('trayLockedLight.png');
      expect(trayIconImage('attention', { platform: 'darwin', darkColors })).toBe('trayAttentionTemplate.png');
    }
    expect(trayIconImage('signedIn', { platform: 'win32', darkColors: true })).toBe('traySignedInLight.png');
    expect(trayIconImage('signedIn', { platform: 'win32', darkColors: false })).toBe('traySignedInTemplate.png');
    expect(new Set(Object.values(LIGHT_TRAY_ICONS)).size).toBe(3);
  });
  it('ships every icon it names, 1x and @2x, light ones drawn light', () => {
    for (const name of [...Object.values(TRAY_ICONS), ...Object.values(LIGHT_TRAY_ICONS)]) {
      for (const file of [name, name.replace(/\.png$/, '@2x.png')])
        expect(existsSync(path.join(RESOURCES, file))).toBe(true);
    }
    // A PNG's colour type 6 (RGBA) and, for the light ones, no pixel anywhere near black.
    const light = readFileSync(path.join(RESOURCES, 'trayLockedLight@2x.png'));
    expect(light.subarray(12, 16).toString('latin1')).toBe('IHDR');
    expect(light[25]).toBe(6);
    const rows = inflateSync(pngData(light));
    const opaque: number[] = [];
    for (let y = 0; y < 32; y++)
      for (let x = 0; x < 32; x++) {
        const at = y * (1 + 32 * 4) + 1 + x * 4;
        if ((rows[at + 3] ?? 0) === 255) opaque.push(Math.min(rows[at] ?? 0, rows[at + 1] ?? 0, rows[at + 2] ?? 0));
      }
    expect(opaque.length).toBeGreaterThan(100);
    expect(Math.min(...opaque)).toBeGreaterThan(200);
  });
  it('says in the tooltip how many are signed in or failing', () => {
    expect(trayTooltip([profile('a', 'ready', 5), profile('b', 'ready', 9)], now)).toBe('Kubecred: 2 signed in');
    expect(trayTooltip([profile('a', 'error')], now)).toBe('Kubecred: 1 profile needs attention');
    expect(trayTooltip([], now)).toBe('Kubecred: locked');
  });
});

describe('tray menu model', () => {
  const menu = trayMenuModel(
    [profile('prod', 'ready', 42), profile('dev', 'idle'), profile('lab', 'error', undefined, 'keychain locked')],
    now,
  );

  it('shows each profile with its state and time left, then the fixed items', () => {
    expect(menu.map((m) => m.label)).toEqual([
      'prod: signed in, 42 min',
      'dev: signed out',
      'lab: failed',
      '',
      'Open Kubecred',
      'Lock all',
      '',
      'Quit',
    ]);
    expect(trayMenuModel([profile('p', 'ready', 185)], now)[0]?.label).toBe('p: signed in, 3 h 5 min');
    expect(trayMenuModel([profile('p', 'ready')], now)[0]?.label).toBe('p: signed in');
  });
  it('gives every profile Log out and Refresh, enabled by its state, and Log in while signed out', () => {
    const prod = menu[0]?.submenu;
    expect(find(prod, 'Log out')).toMatchObject({ enabled: true, action: { kind: 'logout', profile: 'prod' } });
    expect(find(prod, 'Refresh')).toMatchObject({ enabled: true, action: { kind: 'refresh', profile: 'prod' } });
    const dev = menu[1]?.submenu;
    expect(find(dev, 'Log out')?.enabled).toBe(false);
    expect(find(dev, 'Refresh')?.enabled).toBe(false);
    expect(find(dev, 'Log in')?.enabled ?? true).toBe(true);
  });
  it('while a login waits for the person, the profile says so and its item leads to where it waits', () => {
    const waiting = { ...profile('dev', 'idle'), signingIn: true };
    const [item] = trayMenuModel([waiting], now);
    expect(item?.label).toBe('dev: signing in: waiting for you');
    expect(find(item?.submenu, 'Log in')).toBeUndefined();
    expect(find(item?.submenu, 'Signing in: show where…')?.action).toEqual({ kind: 'open' });
  });
  it('shows a failed profile its error, disabled, above the actions', () => {
    const lab = menu[2]?.submenu ?? [];
    expect(lab[0]).toEqual({ label: 'keychain locked', enabled: false });
    expect(lab.map((i) => i.label)).toContain('Log in');
  });
  it('wires the fixed items to their actions', () => {
    expect(find(menu, 'Open Kubecred')?.action).toEqual({ kind: 'open' });
    expect(find(menu, 'Lock all')?.action).toEqual({ kind: 'lockAll' });
    expect(find(menu, 'Quit')?.action).toEqual({ kind: 'quit' });
  });
  it('says so when there are no profiles', () => {
    expect(trayMenuModel([], now)[0]).toEqual({ label: 'No profiles yet', enabled: false });
  });
});

// Electron review 2, F9: the words of the tray.
describe('the tray says what is true', () => {
  it('offers no Log in beside Log out while signed in; Log in again once it ends soon and nothing renews it', () => {
    const labelsOf = (p: ProfileSummary) => trayMenuModel([p], now)[0]?.submenu?.map((i) => i.label);
    expect(labelsOf(profile('sso', 'ready', 42))).toEqual(['Log out', 'Refresh']);
    expect(labelsOf({ ...profile('sso', 'ready', 4), silentRefresh: true })).toEqual(['Log out', 'Refresh']);
    const ending = trayMenuModel([profile('sso', 'ready', 4)], now)[0]?.submenu;
    expect(ending?.map((i) => i.label)).toEqual(['Log in again', 'Log out', 'Refresh']);
    expect(find(ending, 'Log in again')?.action).toEqual({ kind: 'login', profile: 'sso' });
    expect(labelsOf(profile('sso', 'ready', -1))?.[0]).toBe('Log in again');
  });

  it('calls never-used static and exec profiles "not used yet", not "ready"', () => {
    const labels = trayMenuModel(
      [
        { ...profile('first', 'idle'), provider: 'static' },
        { ...profile('flaky', 'idle'), provider: 'exec' },
      ],
      now,
    ).map((i) => i.label);
    expect(labels.slice(0, 2)).toEqual(['first: not used yet', 'flaky: not used yet']);
  });

  it('counts in the tooltip only the profiles someone signs in to, and only live ones', () => {
    const ci = { ...profile('ci', 'ready'), provider: 'static' };
    const plugin = { ...profile('plugin', 'ready', 30), provider: 'exec' };
    expect(trayTooltip([profile('sso', 'ready', 30), ci, plugin], now)).toBe('Kubecred: 1 signed in');
    expect(trayTooltip([ci, plugin], now)).toBe('Kubecred: ready');
    expect(trayTooltip([profile('sso', 'ready', 30), profile('old', 'ready', -1)], now)).toBe('Kubecred: 1 signed in');
  });

  it('has a menu before the first refresh: starting, Open and Quit', () => {
    const starting = startingMenuModel();
    expect(starting.map((i) => (i.separator ? '---' : i.label))).toEqual([
      'Kubecred: starting…',
      '---',
      'Open Kubecred',
      '---',
      'Quit',
    ]);
    expect(starting[0]?.enabled).toBe(false);
    expect(find(starting, 'Open Kubecred')?.action).toEqual({ kind: 'open' });
    expect(find(starting, 'Quit')?.action).toEqual({ kind: 'quit' });
    expect(STARTING_TOOLTIP).toBe('Kubecred: starting…');
  });
});

// Electron review 2, F7: a PIN or approval question may wait behind other windows; the tray says so.
describe('the tray while questions wait', () => {
  const signedIn = [profile('prod', 'ready', 42)];

  it('puts "1 question waiting: show" on top, which shows the questions, and says nothing when none waits', () => {
    const menu = trayMenuModel(signedIn, now, { questionsWaiting: 1 });
    expect(menu[0]).toEqual({ label: '1 question waiting: show', action: { kind: 'showQuestions' } });
    expect(menu[1]?.separator).toBe(true);
    expect(menu[2]?.label).toBe('prod: signed in, 42 min');
    expect(trayMenuModel(signedIn, now, { questionsWaiting: 2 })[0]?.label).toBe('2 questions waiting: show');
    expect(trayMenuModel(signedIn, now, { questionsWaiting: 0 })[0]?.label).toBe('prod: signed in, 42 min');
  });

  it('shows the attention icon and says it in the tooltip while one waits', () => {
    expect(trayIconState(signedIn, now, 1)).toBe('attention');

    expect(trayIconState(signedIn, now, 0)).toBe('signedIn');
    expect(trayTooltip(signedIn, now, 1)).toBe('Kubecred: 1 question waiting');
    expect(trayTooltip(signedIn, now, 3)).toBe('Kubecred: 3 questions waiting');
  });

  it('says under a proxied profile how kubectl reaches its cluster, and whether kubecred-proxy is up', () => {
    const [proxied] = trayMenuModel([{ ...profile('prod', 'ready', 42), proxyPort: 18443 }], now);
    expect(proxied?.submenu?.slice(-2)).toEqual([
      { label: '', separator: true },
      {
        label: 'through kubecred-proxy on 127.0.0.1:18443, not started yet (the next kubectl starts it)',
        enabled: false,
      },
    ]);
    const [listening] = trayMenuModel(
      [{ ...profile('prod', 'ready', 42), proxyPort: 18443, proxyListening: true }],
      now,
    );
    expect(listening?.submenu?.at(-1)).toEqual({
      label: 'through kubecred-proxy, listening on 127.0.0.1:18443',
      enabled: false,
    });
    expect(find(trayMenuModel(signedIn, now)[0]?.submenu, '')).toBeUndefined();
  });
});

describe('menuTemplate', () => {
  it('turns the model into an Electron template whose clicks run the model actions', () => {
    const ran: unknown[] = [];
    const template = menuTemplate(trayMenuModel([profile('prod', 'ready', 42)], now), (action) => ran.push(action));
    expect(template.map((i) => i.type ?? i.label)).toEqual([
      'prod: signed in, 42 min',
      'separator',
      'Open Kubecred',
      'Lock all',
      'separator',
      'Quit',
    ]);
    const logout = (template[0]?.submenu as { label?: string; click?: () => void }[]).find(
      (i) => i.label === 'Log out',
    );
    logout?.click?.();
    (template.find((i) => i.label === 'Quit')?.click as (() => void) | undefined)?.();
    expect(ran).toEqual([{ kind: 'logout', profile: 'prod' }, { kind: 'quit' }]);
    expect(template[0]?.click).toBeUndefined();
  });
});

describe("the tray's start-at-login item", () => {
  it('is a checkbox that reflects the setting and toggles it, and is absent where the platform has none', async () => {
    const { trayMenuModel, menuTemplate } = await import('../../../src/main/electron/trayMenuModel.js');
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(trayMenuModel([], now).some((i) => i.label === 'Start at login')).toBe(false);
    const on = trayMenuModel([], now, { startAtLogin: true });
    expect(on.find((i) => i.label === 'Start at login')).toEqual({
      label: 'Start at login',
      checked: true,
      action: { kind: 'toggleStartAtLogin' },
    });
    const ran: string[] = [];
    const template = menuTemplate(trayMenuModel([], now, { startAtLogin: false }), (action) => ran.push(action.kind));
    const item = template.find((t) => t.label === 'Start at login');
    expect(item).toMatchObject({ type: 'checkbox', checked: false });
    (item?.click as () => void)();
    expect(ran).toEqual(['toggleStartAtLogin']);
  });
});

describe('the tray offers what the window offers', () => {
  it('a profile with nothing to log in to has no Log in and says Forget, as the window does', () => {
    const [ci] = trayMenuModel([{ ...profile('ci', 'ready'), provider: 'static' }], now);
    expect(ci?.label).toBe('ci: ready');
    expect(ci?.submenu?.map((i) => i.label)).toEqual(['Forget', 'Refresh']);
    expect(find(ci?.submenu, 'Forget')?.action).toEqual({ kind: 'logout', profile: 'ci' });
  });
});
