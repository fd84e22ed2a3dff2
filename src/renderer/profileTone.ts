import type { ProfileSummary } from '../shared/api/status.js';
import { hasLogin, waitsForSignIn } from '../shared/api/profileWords.js';

// The state words and time-left text are src/shared/api/profileWords.ts's, which the tray menu
// uses too: the window and the tray say the same thing about a profile. Here only what the
// window adds: the tone of the state line and which login action it offers.

/** How the state line reads at a glance: ok (it works without anyone), waiting (someone must sign in), bad (it failed). */
export type ProfileTone = 'ok' | 'waiting' | 'bad';

export function profileTone(profile: ProfileSummary): ProfileTone {
  if (waitsForSignIn(profile)) return 'waiting';
  if (profile.state === 'error') return 'bad';
  if (profile.state === 'ready' || !hasLogin(profile) || profile.silentRefresh === true) return 'ok';
  return 'waiting';
}

/**
 * Log in is the main action only where someone must sign in; a profile that renews itself
 * still offers it (to sign in as someone else now), and a signed-in one offers Log out instead.
 */
export function loginOffer(profile: ProfileSummary): 'primary' | 'secondary' | 'none' {
  // A login already waits for the person: its card above says where, and offers Cancel.
  if (!hasLogin(profile) || profile.state === 'ready' || waitsForSignIn(profile)) return 'none';
  return profileTone(profile) === 'ok' ? 'secondary' : 'primary';
}
