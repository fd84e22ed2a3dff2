import type { ProfileSummary } from '../shared/api/status.js';

/** "42 min", "3 h 5 min", "expired"; null when there is nothing to count down. */
export function formatTimeLeft(expiresAt: string | null, now: number): string | null {
  if (!expiresAt) return null;
  const ms = Date.parse(expiresAt) - now;
  if (Number.isNaN(ms)) return null;
  if (ms <= 0) return 'expired';
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return `${Math.ceil(ms / 1000)} s`;
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
}

/** Providers whose credential comes from a person signing in; the others need nobody. */
const SIGN_IN_PROVIDERS = new Set(['oidc', 'keystone']);

/** Whether the profile offers Log in: a static token, a wrapped plugin or EKS keys have nothing to log in to. */
export function hasLogin(profile: Pick<ProfileSummary, 'provider'>): boolean {
  return SIGN_IN_PROVIDERS.has(profile.provider);
}

/**
 * The words the main window uses for a profile: "signed in as ada, 42 min", "ready" (nothing
 * cached, but the next request needs nobody: a stored token, a refresh token), "signed out".
 */
export function describeProfile(profile: ProfileSummary, now: number): string {
  if (profile.state === 'error') return 'failed';
  if (profile.state === 'idle') {
    if (!hasLogin(profile)) return 'ready';
    return profile.silentRefresh === true ? 'will refresh on use' : 'signed out';
  }
  const who = profile.account ? `signed in as ${profile.account}` : hasLogin(profile) ? 'signed in' : 'ready';
  const left = formatTimeLeft(profile.expiresAt, now);
  return left ? `${who}, ${left}` : who;
}

/** How the state line reads at a glance: ok (it works without anyone), waiting (someone must sign in), bad (it failed). */
export type ProfileTone = 'ok' | 'waiting' | 'bad';

export function profileTone(profile: ProfileSummary): ProfileTone {
  if (profile.state === 'error') return 'bad';
  if (profile.state === 'ready' || !hasLogin(profile) || profile.silentRefresh === true) return 'ok';
  return 'waiting';
}

/**
 * Log in is the main action only where someone must sign in; a profile that renews itself
 * still offers it (to sign in as someone else now), and a signed-in one offers Log out instead.
 */
export function loginOffer(profile: ProfileSummary): 'primary' | 'secondary' | 'none' {
  if (!hasLogin(profile) || profile.state === 'ready') return 'none';
  return profileTone(profile) === 'ok' ? 'secondary' : 'primary';
}
