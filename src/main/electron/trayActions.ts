import type { ProfileSummary } from '../../shared/api/status.js';
import type { GuardAsker } from '../broker/guardControl.js';
import type { BrokerServices } from '../broker/brokerServices.js';
import { TRAY_GUARD_LIFT_MS } from './trayMenuModel.js';

/** What the tray and the windows ask of the broker. */
export interface TrayActions {
  listProfiles(): Promise<ProfileSummary[]>;
  login(profile: string): Promise<{ expiresAt: string | null }>;
  logout(profile: string): Promise<void>;
  /** Get a fresh credential now, keeping the login (a login for interactive providers without one). */
  refresh(profile: string): Promise<{ expiresAt: string | null }>;
  /** Forget cached credentials and PINs now. */
  lockAll(): Promise<void>;
  /** Lift the profile's guard for the tray's one choice (TRAY_GUARD_LIFT_MS); it comes back by itself. */
  liftGuard(profile: string): Promise<void>;
  /** Put the profile's guard back now. */
  guardBack(profile: string): Promise<void>;
}

/**
 * The tray app's actions: the broker's use cases in this very process, called
 * directly. (It once asked its own socket, a second path to the same services that could
 * disagree with the first.) Errors are the broker's own, with their message and fix.
 */
export function trayActions({
  credentials,
  admin,
  guards,
}: Pick<BrokerServices, 'credentials' | 'admin' | 'guards'>): TrayActions {
  return {
    listProfiles: () => credentials.profiles(),
    login: async (profile) => ({ expiresAt: (await credentials.login(profile, { client: 'tray' })).expiresAt }),
    logout: (profile) => credentials.logout(profile),
    refresh: async (profile) => ({ expiresAt: (await credentials.refresh(profile)).expiresAt }),
    lockAll: () => admin.lockAll(),
    // GuardControl audits and logs each change; the proxy and every view hear of it at once.
    liftGuard: async (profile) => void (await guards.off(profile, TRAY_GUARD_LIFT_MS, TRAY_MENU)),
    guardBack: async (profile) => void (await guards.on(profile, TRAY_MENU)),
  };
}

/** Only the person clicks the tray's menu: a lift from it needs no second question. */
const TRAY_MENU: GuardAsker = { caller: { name: 'the tray menu' }, client: 'tray', byThePerson: true };
