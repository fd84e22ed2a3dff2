import type { ProfileSummary } from '../../shared/api/status.js';
import { formatRemaining } from '../../shared/duration.js';

/** A menu as plain data, so it is tested without Electron; the tray turns it into a Menu. */
export interface MenuItemModel {
  readonly label: string;
  readonly enabled?: boolean;
  readonly action?: { readonly kind: 'logout' | 'login' | 'open' | 'quit'; readonly profile?: string };
  readonly submenu?: readonly MenuItemModel[];
  readonly separator?: boolean;
}

export function profileLabel(profile: ProfileSummary, now: number): string {
  if (profile.state === 'ready') {
    return profile.expiresAt ? `${profile.name}: signed in, ${formatRemaining(Date.parse(profile.expiresAt) - now)}` : `${profile.name}: signed in`;
  }
  return profile.state === 'error' ? `${profile.name}: needs attention` : `${profile.name}: signed out`;
}

export function trayMenuModel(profiles: readonly ProfileSummary[], now: number): MenuItemModel[] {
  const items: MenuItemModel[] = profiles.map((profile) => ({
    label: profileLabel(profile, now),
    submenu: [
      { label: 'Log in', action: { kind: 'login', profile: profile.name } },
      { label: 'Log out', enabled: profile.state === 'ready', action: { kind: 'logout', profile: profile.name } },
    ],
  }));
  if (items.length === 0) items.push({ label: 'No profiles yet', enabled: false });
  return [...items, { label: '', separator: true }, { label: 'Open Kubecred', action: { kind: 'open' } }, { label: 'Quit', action: { kind: 'quit' } }];
}
