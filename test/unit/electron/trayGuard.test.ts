import { describe, expect, it } from 'vitest';
import type { ProfileSummary } from '../../../src/shared/api/status.js';
import type { BrokerServices } from '../../../src/main/broker/brokerServices.js';
import {
  TRAY_GUARD_LIFT_MS,
  menuTemplate,
  trayMenuModel,
  trayTooltip,
  type MenuItemModel,
} from '../../../src/main/electron/trayMenuModel.js';
import { trayActions } from '../../../src/main/electron/trayActions.js';

const now = Date.parse('2026-01-01T00:00:00Z');
const inMinutes = (minutes: number) => new Date(now + minutes * 60_000).toISOString();
const prod = (guard?: ProfileSummary['guard']): ProfileSummary => ({
  name: 'prod',
  provider: 'static',
  state: 'ready',
  expiresAt: null,
  lastError: null,
  proxyPort: 47001,
  ...(guard ? { guard } : {}),
});
const labels = (items: readonly MenuItemModel[] | undefined) => items?.map((i) => (i.separator ? '---' : i.label));

// Issue 33: a guarded profile's guard is seen and lifted from the tray, in the window's words.
describe("the tray's guard items", () => {
  it('shows a guard that holds, and offers to lift it for 15 minutes', () => {
    const [item] = trayMenuModel([prod({ rules: 2, offUntil: null })], now);
    expect(item?.label).toBe('prod: ready');
    expect(labels(item?.submenu)).toEqual([
      'Forget',
      'Refresh',
      '---',
      'through kubecred-proxy on 127.0.0.1:47001, not started yet (the next kubectl starts it)',
      'guard on (2 rules)',
      'Lift guard for 15 minutes',
    ]);
    expect(item?.submenu?.[4]).toEqual({ label: 'guard on (2 rules)', enabled: false });
    expect(item?.submenu?.[5]?.action).toEqual({ kind: 'liftGuard', profile: 'prod' });
    expect(TRAY_GUARD_LIFT_MS).toBe(15 * 60_000);
  });

  it('shows a lifted guard with the time until it is back, on the profile line too, and offers to put it back', () => {
    const [item] = trayMenuModel([prod({ rules: 1, offUntil: inMinutes(14.5) })], now);
    expect(item?.label).toBe('prod: ready; guard lifted');
    expect(labels(item?.submenu)?.slice(4)).toEqual(['guard lifted, back in 15 min', 'Put guard back now']);
    expect(item?.submenu?.[5]?.action).toEqual({ kind: 'guardBack', profile: 'prod' });
    expect(trayTooltip([prod({ rules: 1, offUntil: inMinutes(14.5) })], now)).toBe(
      'Kubecred: ready; guard lifted on prod',
    );
  });

  it('counts a lift whose time is up as a guard that holds, whatever the last state said', () => {
    const [item] = trayMenuModel([prod({ rules: 1, offUntil: inMinutes(-1) })], now);
    expect(item?.label).toBe('prod: ready');
    expect(labels(item?.submenu)?.slice(4)).toEqual(['guard on (1 rule)', 'Lift guard for 15 minutes']);
    expect(trayTooltip([prod({ rules: 1, offUntil: inMinutes(-1) })], now)).toBe('Kubecred: ready');
  });

  it('shows nothing of a guard for a profile without one', () => {
    const [item] = trayMenuModel([prod()], now);
    expect(labels(item?.submenu)).toEqual([
      'Forget',
      'Refresh',
      '---',
      'through kubecred-proxy on 127.0.0.1:47001, not started yet (the next kubectl starts it)',
    ]);
  });

  it("the items' clicks run the guard's actions", () => {
    const ran: unknown[] = [];
    const template = menuTemplate(trayMenuModel([prod({ rules: 1, offUntil: null })], now), (a) => ran.push(a));
    const submenu = template[0]?.submenu as { label?: string; enabled?: boolean; click?: () => void }[];
    expect(submenu.find((i) => i.label === 'guard on (1 rule)')).toMatchObject({ enabled: false });
    submenu.find((i) => i.label === 'Lift guard for 15 minutes')?.click?.();
    expect(ran).toEqual([{ kind: 'liftGuard', profile: 'prod' }]);
  });

  it("the actions call the broker's GuardControl: lifted for 15 minutes, or back now", async () => {
    const calls: unknown[] = [];
    const state = { profile: 'prod', rules: 1, offUntil: null };
    const guards = {
      off: async (profile: string, ms: number, asker: unknown) => (calls.push(['off', profile, ms, asker]), state),
      on: async (profile: string, asker: unknown) => (calls.push(['on', profile, asker]), state),
    };
    const actions = trayActions({
      credentials: {} as BrokerServices['credentials'],
      admin: {} as BrokerServices['admin'],
      guards: guards as unknown as BrokerServices['guards'],
    });
    await actions.liftGuard('prod');
    await actions.guardBack('prod');
    // Only the person clicks the tray's menu: the lift needs no second question, and the trail says where it came from.
    const tray = { caller: { name: 'the tray menu' }, client: 'tray', byThePerson: true };
    expect(calls).toEqual([
      ['off', 'prod', 15 * 60_000, tray],
      ['on', 'prod', tray],
    ]);
  });

  // Electron review 2, F9: rounded down, a lift for 15 minutes read "back in 14 min" at once.
  it('says the time until the guard is back rounded up: a fresh 15-minute lift reads 15 min', () => {
    const [fresh] = trayMenuModel(
      [prod({ rules: 1, offUntil: new Date(now + TRAY_GUARD_LIFT_MS - 1).toISOString() })],
      now,
    );
    expect(fresh?.submenu?.[4]?.label).toBe('guard lifted, back in 15 min');
    const [last] = trayMenuModel([prod({ rules: 1, offUntil: inMinutes(0.25) })], now);
    expect(last?.submenu?.[4]?.label).toBe('guard lifted, back in 15 s');
  });

  // Security review 4, D5: the tray says who lifted a guard, as the window's Activity does.
  it('names who lifted the guard while it is lifted', () => {
    const lifted = prod({ rules: 1, offUntil: inMinutes(14.5), liftedBy: 'node (pid 4242)' });
    const [item] = trayMenuModel([lifted], now);
    expect(labels(item?.submenu)?.slice(4)).toEqual([
      'guard lifted by node (pid 4242), back in 15 min',
      'Put guard back now',
    ]);
  });
});
