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

const STATE_WORDS: Record<ProfileSummary['state'], string> = { ready: 'signed in', idle: 'signed out', error: 'failed' };

/** The words the tray and the main window use for a profile: "signed in, 42 min". */
export function describeProfile(profile: ProfileSummary, now: number): string {
  const left = profile.state === 'ready' ? formatTimeLeft(profile.expiresAt, now) : null;
  return left ? `${STATE_WORDS[profile.state]}, ${left}` : STATE_WORDS[profile.state];
}
