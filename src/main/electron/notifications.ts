import type { ProfileSummary } from '../../shared/api/status.js';
import { formatRemaining } from '../../shared/duration.js';
import { EXPIRING_SOON_MS, hasLogin } from '../../shared/api/profileWords.js';
import { FROM_BEFORE_START } from '../state/failuresBeforeStart.js';

/** What the notifier compares: the profiles, and the requests the broker denied so far. */
export interface BrokerSnapshot {
  /** When the snapshot was taken (ms since the epoch). */
  readonly at: number;
  readonly profiles: readonly ProfileSummary[];
  /** Profiles whose credential the broker can renew without the user (refresh token, wrapped plugin, keychain secret). */
  readonly silentRefresh: ReadonlySet<string>;
  /** Requests denied (by the user or by policy), oldest first; ids are unique. */
  readonly denied: readonly DeniedRequest[];
}

export interface DeniedRequest {
  readonly id: string;
  readonly profile: string;
  readonly caller?: string;
}

export interface KubecredNotification {
  readonly kind: 'expiring' | 'loginFailed' | 'denied';
  readonly profile: string;
  readonly title: string;
  readonly body: string;
  /** What clicking it does: log in again, or open the main window. */
  readonly action: 'login' | 'open';
}

/** Warn when the window's badge turns to "expiring": an expiry the broker cannot renew by itself. */
export const EXPIRY_WARNING_MS = EXPIRING_SOON_MS;

function expiresWithin(profile: ProfileSummary | undefined, now: number, windowMs: number): boolean {
  if (profile?.state !== 'ready' || profile.expiresAt === null) return false;
  const left = Date.parse(profile.expiresAt) - now;
  return left > 0 && left <= windowMs;
}

/** What failed, in words that fit the profile: a wrapped plugin or a stored secret has no login to fail. */
function failureWords(profile: ProfileSummary): string {
  if (profile.secretMissing) return 'no secret stored';
  if (hasLogin(profile)) return 'login failed';
  return profile.provider === 'exec' ? 'its plugin failed' : 'no credential';
}

/**
 * The notifications since the last snapshot; none for the first, which is what was there when the
 * app started (electron review 2, F3: every start replayed old denials and failures).
 */
export function notificationsSince(
  previous: BrokerSnapshot | undefined,
  next: BrokerSnapshot,
  warningMs = EXPIRY_WARNING_MS,
): KubecredNotification[] {
  return previous ? notificationsFor(previous, next, warningMs) : [];
}

/**
 * The notifications a change of broker state calls for. Each fires once, on the transition:
 * a credential entering the warning window (same expiry already warned about: no repeat), a
 * profile turning to error or failing with a new message, a denied request not seen before.
 */
export function notificationsFor(
  previous: BrokerSnapshot,
  next: BrokerSnapshot,
  warningMs = EXPIRY_WARNING_MS,
): KubecredNotification[] {
  const now = next.at;
  const before = new Map(previous.profiles.map((p) => [p.name, p]));
  const out: KubecredNotification[] = [];
  for (const profile of next.profiles) {
    const old = before.get(profile.name);
    const alreadyWarned =
      old?.expiresAt === profile.expiresAt &&
      !previous.silentRefresh.has(profile.name) &&
      expiresWithin(old, previous.at, warningMs);
    if (!next.silentRefresh.has(profile.name) && expiresWithin(profile, now, warningMs) && !alreadyWarned) {
      const left = formatRemaining(Date.parse(profile.expiresAt ?? '') - now);
      out.push({
        kind: 'expiring',
        profile: profile.name,
        title: `${profile.name} expires in ${left}`,
        body: 'Kubecred cannot renew it by itself. Log in again to keep working.',
        action: 'login',
      });
    }
    // A failure recalled from the broker's last run is old news (electron review 2, F3).
    const newlyFailed =
      profile.state === 'error' &&
      (old?.state !== 'error' || old.lastError !== profile.lastError) &&
      !profile.lastError?.includes(FROM_BEFORE_START);
    if (newlyFailed) {
      out.push({
        kind: 'loginFailed',
        profile: profile.name,
        title: `${profile.name}: ${failureWords(profile)}`,
        body: profile.lastError ?? 'The login did not succeed.',
        action: 'open',
      });
    }
  }
  const seen = new Set(previous.denied.map((d) => d.id));
  for (const denial of next.denied) {
    if (seen.has(denial.id)) continue;
    const who = denial.caller ? `${denial.caller} was` : 'A program was';
    out.push({
      kind: 'denied',
      profile: denial.profile,
      title: `Request for ${denial.profile} denied`,
      body: `${who} refused a credential for ${denial.profile}.`,
      action: 'open',
    });
  }
  return out;
}
