import type { ProfileSummary } from '../../shared/api/status.js';
import type { BrokerServices } from '../broker/brokerServices.js';

/** What the tray and the windows ask of the broker. */
export interface TrayActions {
  listProfiles(): Promise<ProfileSummary[]>;
  login(profile: string): Promise<{ expiresAt: string | null }>;
  logout(profile: string): Promise<void>;
  /** Get a fresh credential now, keeping the login (a login for interactive providers without one). */
  refresh(profile: string): Promise<{ expiresAt: string | null }>;
  /** Forget cached credentials and PINs now. */
  lockAll(): Promise<void>;
}

/**
 * The tray app's actions: the broker's use cases in this very process, called
 * directly. (It once asked its own socket, a second path to the same services that could
 * disagree with the first.) Errors are the broker's own, with their message and fix.
 */
export function trayActions({ credentials, admin }: Pick<BrokerServices, 'credentials' | 'admin'>): TrayActions {
  return {
    listProfiles: () => credentials.profiles(),
    login: async (profile) => ({ expiresAt: (await credentials.login(profile)).expiresAt }),
    logout: (profile) => credentials.logout(profile),
    refresh: async (profile) => ({ expiresAt: (await credentials.refresh(profile)).expiresAt }),
    lockAll: () => admin.lockAll(),
  };
}
